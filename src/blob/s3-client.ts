import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Connection settings of {@link createS3Client}; credentials come from the AWS default chain. */
export interface S3ConnectionOptions {
  region: string;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
  credentials?: S3ClientConfig['credentials'];
  /** Where the SDK's warnings go (a pino logger fits); without one it writes to the console. */
  logger?: S3ClientConfig['logger'];
  /** Default {@link S3_IDLE_TIMEOUT_MS}. */
  idleTimeoutMs?: number;
}

/**
 * A store that takes a connection and then says nothing (a hung endpoint) fails a request
 * after this long without a byte either way, instead of holding a worker's upload until its
 * job times out; the caller answers 503 and the worker retries. A connection must open
 * within CONNECT_TIMEOUT_MS. With S3_ATTEMPTS tries, a hung store is a 503 within about
 * 20 s: before the worker's 30 s wait for an input and a client's usual 30 to 60 s, so both
 * hear it is the store and can wait it out.
 */
export const S3_IDLE_TIMEOUT_MS = 10_000;
export const S3_CONNECT_TIMEOUT_MS = 5_000;
export const S3_ATTEMPTS = 2;

/** An S3 client that also works with S3-compatible stores. */
export function createS3Client(options: S3ConnectionOptions): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Warnings only: the SDK logs each request's input and output at info (a 12 KB line for
    // a read) and each failure at error, a HeadObject's expected 404 included; the callers
    // handle and report failures themselves.
    logger: options.logger && warningsOf(options.logger),
    maxAttempts: S3_ATTEMPTS,
    requestHandler: {
      connectionTimeout: S3_CONNECT_TIMEOUT_MS,
      socketTimeout: options.idleTimeoutMs ?? S3_IDLE_TIMEOUT_MS,
    },
    // Default checksums put `x-amz-checksum-*` into presigned URLs and use aws-chunked
    // uploads, which break browser PUTs and many S3-compatible stores.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * The SDK's warnings but the one it gives with every failed upload ("An error was
 * encountered in a non-retryable streaming request"), which the caller reports itself with
 * the bucket and the reason.
 */
function warningsOf(logger: NonNullable<S3ClientConfig['logger']>): NonNullable<S3ClientConfig['logger']> {
  const quiet = () => {};
  return {
    trace: quiet,
    debug: quiet,
    info: quiet,
    error: quiet,
    warn: (...args) => {
      if (!args.some((a) => typeof a === 'string' && a.includes('non-retryable streaming request')))
        logger.warn(...args);
    },
  };
}
