import { z } from 'zod';

/** Public base of the filesystem store's URLs when none is configured: the api on its default port. */
export const DEFAULT_FILES_BASE_URL = 'http://127.0.0.1:8080/files';

const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * The `blob` part of the configuration. Parsed once at start-up; `publicBaseUrl` is
 * always set after parsing.
 */
export const blobConfigSchema = z
  .object({
    /** Which store holds uploads and outputs: files served by the api, or an S3-compatible bucket. */
    type: z.enum(['filesystem', 's3']).default('filesystem'),
    /** filesystem: the directory holding the files (a PersistentVolumeClaim in a cluster). */
    dir: z.string().min(1).default('/var/lib/genjobs/blobs'),
    /**
     * Base of the public URLs (fileUrl, output urls), as clients reach it. filesystem: where
     * the api serves `/files` (default http://127.0.0.1:8080/files); s3: the CDN or bucket
     * URL, required.
     */
    publicBaseUrl: httpUrl.optional(),
    /** HMAC key of upload URLs and worker grants, shared by all api and controller replicas. */
    signingSecret: z.string().min(32, 'blob.signingSecret must be at least 32 characters'),
    /** Former signing secrets, still accepted during a rotation. */
    previousSigningSecrets: z.array(z.string().min(32)).default([]),
    /** Largest single output a worker may write, in bytes (default 1 GiB). */
    outputMaxSize: z
      .number()
      .int()
      .positive()
      .default(1024 ** 3),
    /** s3: where the bucket is; credentials come from the AWS default chain (env, IRSA, ...). */
    s3: z
      .object({
        /** Bucket name. */
        bucket: z.string().min(3),
        /** Region (S3-compatible stores usually accept any; default us-east-1). */
        region: z.string().min(1).default('us-east-1'),
        /** Endpoint of an S3-compatible store; AWS when absent. */
        endpoint: httpUrl.optional(),
        /** Path-style addressing (`<endpoint>/<bucket>/<key>`), needed by most S3-compatible stores. */
        forcePathStyle: z.boolean().default(false),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.type !== 's3') return;
    if (!config.s3)
      ctx.addIssue({ code: 'custom', path: ['s3'], message: 'blob.s3 is required when blob.type is s3' });
    if (!config.publicBaseUrl) {
      ctx.addIssue({
        code: 'custom',
        path: ['publicBaseUrl'],
        message:
          'GENJOBS_BLOB_PUBLIC_URL (chart: blob.publicUrl), where clients download files (a CDN or the bucket), is required when the blob store is s3',
      });
    }
  })
  .transform((config) => ({ ...config, publicBaseUrl: config.publicBaseUrl ?? DEFAULT_FILES_BASE_URL }));

/** Parsed blob configuration. */
export type BlobConfig = z.output<typeof blobConfigSchema>;
