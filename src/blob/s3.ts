import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AppError } from '../errors.ts';
import { assertValidKey, assertValidPrefix } from './keys.ts';
import { assertValidMediaType } from './media-type.ts';
import { ByteMeter } from './meter.ts';
import type { BlobSigner } from './signing.ts';
import type { BlobBody, BlobInfo, BlobStore, PresignPutOptions, PutOptions } from './store.ts';

const statusOf = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
/** A 404 about the bucket, not the object (HeadObject answers a bare 404 without a code). */
const isNoSuchBucket = (error: unknown) => (error as { name?: string }).name === 'NoSuchBucket';

/** An object opened for reading: its metadata and its bytes (all, or the range asked for). */
export interface S3Read {
  /** `size` is the whole object's, also when a range was read. */
  info: BlobInfo;
  /** Bytes in `body`. */
  length: number;
  /** `bytes a-b/size` when a range was read. */
  contentRange: string | undefined;
  body: Readable;
}

/** Options of {@link S3BlobStore}. */
export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Base of public URLs (a CDN, or the bucket's URL): `<publicBaseUrl>/<key>`. */
  publicBaseUrl: string;
  /** Signs prefix grants, which workers redeem at the api's `/files` router. */
  signer: BlobSigner;
  /** Per-object size limit of PUTs made with a prefix grant. */
  grantMaxSize: number;
  now: () => number;
}

/**
 * Any S3-compatible bucket. Presigned PUTs sign the Content-Type, so a PUT with another type
 * fails with 403 at the store, and the expiry. A presigned PUT cannot bound the body size
 * (only a POST policy can, and the spec's upload is a PUT): after the upload, callers
 * check `stat(key).size` against the limit and delete the object when it is larger.
 * Server-side writes (`putStream`, grant uploads through the api) are bounded as they stream.
 */
export class S3BlobStore implements BlobStore {
  readonly type = 's3' as const;
  readonly #options: S3BlobStoreOptions;
  readonly #baseUrl: string;

  constructor(options: S3BlobStoreOptions) {
    this.#options = options;
    this.#baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  }

  async presignPut(key: string, { contentType, expiresAt }: PresignPutOptions): Promise<string> {
    assertValidKey(key);
    assertValidMediaType(contentType);
    const now = this.#options.now();
    const command = new PutObjectCommand({
      Bucket: this.#options.bucket,
      Key: key,
      ContentType: contentType,
    });
    return getSignedUrl(this.#options.client, command, {
      signingDate: new Date(now),
      expiresIn: Math.max(1, Math.floor((expiresAt.getTime() - now) / 1000)),
      signableHeaders: new Set(['content-type']),
    });
  }

  /**
   * Whether the bucket is there and these credentials may use it, asked once at start: a
   * misnamed bucket or refused credentials are then a line in the log before any upload.
   */
  async checkBucket(): Promise<void> {
    try {
      await this.#options.client.send(new HeadBucketCommand({ Bucket: this.#options.bucket }));
    } catch (error) {
      // HeadBucket answers a bare 404 or 403, without the codes a body would carry.
      const status = statusOf(error);
      const { bucket } = this.#options;
      if (status === 404) throw new Error(`the bucket ${bucket} does not exist`, { cause: error });
      if (status === 403)
        throw new Error(`the store refuses these credentials access to the bucket ${bucket}`, {
          cause: error,
        });
      throw new Error(this.#reason(error), { cause: error });
    }
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.#baseUrl}/${key}`;
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<BlobInfo> {
    const { size } = await stat(filePath);
    return this.putStream(key, createReadStream(filePath), contentType, { size });
  }

  async putStream(
    key: string,
    body: BlobBody,
    contentType: string,
    options: PutOptions = {},
  ): Promise<BlobInfo> {
    assertValidKey(key);
    assertValidMediaType(contentType);
    if (options.size === undefined) return this.#putUnsized(key, body, contentType, options.maxSize);
    const meter = new ByteMeter(options.maxSize);
    const stream = Readable.from(meter.stage()(body));
    // The SDK pipes the body without watching it for errors: a body that fails (too large,
    // or its source broke) must abort the request itself, or the request waits forever.
    const abort = new AbortController();
    let failure: unknown;
    stream.on('error', (error) => {
      failure = error;
      abort.abort(error);
    });
    const command = new PutObjectCommand({
      Bucket: this.#options.bucket,
      Key: key,
      ContentType: contentType,
      ContentLength: options.size,
      Body: stream,
    });
    try {
      await this.#options.client.send(command, { abortSignal: abort.signal });
    } catch (error) {
      // The body's own failure (too large, its sender gone) is the caller's; the rest the store's.
      throw failure ?? this.#unavailable(error);
    }
    return this.#statOrThrow(key);
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertValidKey(key);
    try {
      const head = await this.#options.client.send(
        new HeadObjectCommand({ Bucket: this.#options.bucket, Key: key }),
      );
      return {
        key,
        size: head.ContentLength ?? 0,
        contentType: head.ContentType ?? 'application/octet-stream',
        etag: head.ETag,
        lastModified: head.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (statusOf(error) === 404 && !isNoSuchBucket(error)) return undefined;
      throw this.#unavailable(error);
    }
  }

  /**
   * Opens the object for reading (the api's `/files` serves uploads from it to worker Pods,
   * which may not reach the bucket): its metadata and a stream of its bytes, or of the one
   * byte range asked for; undefined when there is no such object.
   */
  async read(key: string, range?: string): Promise<S3Read | undefined> {
    assertValidKey(key);
    try {
      const got = await this.#options.client.send(
        new GetObjectCommand({ Bucket: this.#options.bucket, Key: key, Range: range }),
      );
      return {
        info: {
          key,
          size: Number(/\/(\d+)$/.exec(got.ContentRange ?? '')?.[1] ?? got.ContentLength ?? 0),
          contentType: got.ContentType ?? 'application/octet-stream',
          etag: got.ETag,
          lastModified: got.LastModified ?? new Date(0),
        },
        length: got.ContentLength ?? 0,
        contentRange: got.ContentRange,
        body: got.Body as Readable,
      };
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 && !isNoSuchBucket(error)) return undefined;
      if (status === 416) throw new AppError('VALIDATION_ERROR', 'the requested range is not satisfiable');
      throw this.#unavailable(error);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.#options.client.send(new DeleteObjectCommand({ Bucket: this.#options.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    const { client, bucket } = this.#options;
    // Pages hold at most 1000 keys, the most one DeleteObjects accepts.
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
      const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (objects.length === 0) continue;
      const result = await client.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }),
      );
      const failed = result.Errors?.[0];
      if (failed) throw new Error(`deleting ${failed.Key} failed: ${failed.Code} ${failed.Message}`);
    }
  }

  grantForPrefix(prefix: string, expiresAt: Date): string {
    return this.#options.signer.mintGrant(prefix, expiresAt, this.#options.grantMaxSize);
  }

  /** S3 needs the length before the body: spool a body of unknown length to a temporary file. */
  async #putUnsized(key: string, body: BlobBody, contentType: string, maxSize?: number): Promise<BlobInfo> {
    const dir = await mkdtemp(join(tmpdir(), 'genjobs-s3-'));
    try {
      const file = join(dir, 'body');
      const meter = new ByteMeter(maxSize);
      await pipeline(body, meter.stage(), createWriteStream(file));
      return await this.putStream(key, createReadStream(file), contentType, { size: meter.size });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * A failure of the bucket as a retryable 503 (`UNAVAILABLE`), never a 404 or a 500 that
   * blames the file or the client: a missing bucket, refused or timed-out connections, the
   * store's own 5xx and access refusals are the operator's to fix or the store's to recover
   * from. The answer says no more than that (a file URL is read by anyone: the bucket's
   * name and the store's address are not theirs to see); its cause, logged with the
   * request, names the bucket and what the store said.
   */
  #unavailable(error: unknown): unknown {
    if (error instanceof AppError) return error;
    return new AppError('UNAVAILABLE', 'the file store is unavailable right now; please retry', {
      cause: new Error(this.#reason(error), { cause: error }),
      retryAfterSeconds: 5,
    });
  }

  #reason(error: unknown): string {
    const { bucket } = this.#options;
    if (isNoSuchBucket(error)) return `the bucket ${bucket} does not exist`;
    const e = error as Error;
    return `bucket ${bucket}: ${e.name ?? 'Error'}: ${e.message ?? String(error)}`;
  }

  async #statOrThrow(key: string): Promise<BlobInfo> {
    const info = await this.stat(key);
    if (!info) throw new Error(`object ${key} vanished right after it was written`);
    return info;
  }
}
