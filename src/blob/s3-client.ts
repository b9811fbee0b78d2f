import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Connection settings of {@link createS3Client}; credentials come from the AWS default chain. */
export interface S3ConnectionOptions {
  region: string;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
  credentials?: S3ClientConfig['credentials'];
  /** Where the SDK's warnings go (a pino logger fits); without one it writes to the console. */
  logger?: S3ClientConfig['logger'];
}

/** An S3 client that also works with S3-compatible stores. */
export function createS3Client(options: S3ConnectionOptions): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    logger: options.logger,
    // Default checksums put `x-amz-checksum-*` into presigned URLs and use aws-chunked
    // uploads, which break browser PUTs and many S3-compatible stores.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
