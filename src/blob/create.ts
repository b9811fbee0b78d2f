import type { S3Client } from '@aws-sdk/client-s3';
import type { Router } from 'express';
import { assertNever } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BlobConfig } from './config.ts';
import { FilesystemBlobStore } from './filesystem.ts';
import { createBlobRouter } from './routes.ts';
import { S3BlobStore } from './s3.ts';
import { createS3Client } from './s3-client.ts';
import type { ReadLimit } from './s3-read.ts';
import { BlobSigner } from './signing.ts';
import type { BlobStore } from './store.ts';

/** What the composition root passes in. */
export interface BlobDependencies {
  now: () => number;
  /** An S3 client to use instead of one made from the configuration (tests). */
  s3Client?: S3Client;
  logger?: Logger;
  /** s3: the largest an upload may be to be served through `/files` (the api's upload policy). */
  readLimit?: ReadLimit;
  /** Whether a worker's grant, or a presigned upload, may still write a key (see BlobRouterOptions). */
  grantOpen?: (key: string) => boolean;
  uploadOpen?: (key: string) => Promise<boolean>;
}

/** The configured store, and the `/files` router the api mounts (before any body parser). */
export interface Blob {
  store: BlobStore;
  router: Router;
}

/** Builds the blob store chosen by `config.type`. */
export function createBlob(config: BlobConfig, deps: BlobDependencies): Blob {
  const signer = new BlobSigner({
    secrets: [config.signingSecret, ...config.previousSigningSecrets],
    now: deps.now,
  });
  const store = createStore(config, signer, deps);
  return {
    store,
    router: createBlobRouter({
      store,
      signer,
      readLimit: deps.readLimit,
      grantOpen: deps.grantOpen,
      uploadOpen: deps.uploadOpen,
    }),
  };
}

function createStore(config: BlobConfig, signer: BlobSigner, deps: BlobDependencies): BlobStore {
  const common = { publicBaseUrl: config.publicBaseUrl, signer, grantMaxSize: config.outputMaxSize };
  switch (config.type) {
    case 'filesystem':
      return new FilesystemBlobStore({ ...common, dir: config.dir });
    case 's3': {
      // The schema requires s3 settings when type is s3.
      const s3 = config.s3!;
      const client = deps.s3Client ?? createS3Client({ ...s3, logger: deps.logger });
      return new S3BlobStore({ ...common, client, bucket: s3.bucket, now: deps.now });
    }
    default:
      return assertNever(config.type);
  }
}
