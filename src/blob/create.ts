import type { S3Client } from '@aws-sdk/client-s3';
import type { Router } from 'express';
import { assertNever } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BlobConfig } from './config.ts';
import { FilesystemBlobStore } from './filesystem.ts';
import { type BlobRouterOptions, createBlobRouter } from './routes.ts';
import { S3BlobStore } from './s3.ts';
import { createS3Client } from './s3-client.ts';
import { BlobSigner } from './signing.ts';
import type { BlobStore } from './store.ts';

/**
 * What the composition root passes in; `readLimit`, `grantOpen` and `uploadOpen` go to the
 * `/files` router as they are (see BlobRouterOptions).
 */
export interface BlobDependencies extends Pick<BlobRouterOptions, 'readLimit' | 'grantOpen' | 'uploadOpen'> {
  now: () => number;
  /** An S3 client to use instead of one made from the configuration (tests). */
  s3Client?: S3Client;
  logger?: Logger;
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
      const store = new S3BlobStore({ ...common, client, bucket: s3.bucket, now: deps.now });
      // Not waited for: a store that comes up later is used then; the log says it now.
      store.checkBucket().then(
        () => deps.logger?.info({ bucket: s3.bucket, endpoint: s3.endpoint }, 'the file store (s3) answers'),
        (err: unknown) =>
          deps.logger?.error(
            { bucket: s3.bucket, endpoint: s3.endpoint, err: (err as Error).message },
            'the file store (s3) cannot be used yet: uploads and job outputs fail until it can',
          ),
      );
      return store;
    }
    default:
      return assertNever(config.type);
  }
}
