import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { AppError } from '../errors.ts';
import type { S3BlobStore } from './s3.ts';
import type { BlobInfo } from './store.ts';

/**
 * The largest size a stored object may have to be served, or undefined for no limit. The
 * api gives the upload size policy (by content type): an S3 presigned PUT cannot bound the
 * body, so an oversize upload may exist until the controller finds and deletes it.
 */
export type ReadLimit = (key: string, info: BlobInfo) => number | undefined;

/**
 * `GET|HEAD /files/<key>` with the s3 store: the object read from the bucket and streamed,
 * so a worker Pod that reaches only the api (its NetworkPolicy, no bucket credentials) can
 * use an upload's fileUrl, or an earlier job's output URL, as input: the worker rewrites
 * the bucket's public URLs to the api's /files. An object the read limit refuses (an upload
 * larger than its type allows) is deleted and answered 404, never served.
 */
export async function serveFromS3(
  store: S3BlobStore,
  key: string,
  req: Request,
  res: Response,
  limit?: ReadLimit,
): Promise<void> {
  const range = typeof req.headers.range === 'string' ? req.headers.range : undefined;
  const read = await store.read(key, range);
  if (!read) throw new AppError('NOT_FOUND', 'no such file');
  const max = limit?.(key, read.info);
  if (max !== undefined && read.info.size > max) {
    read.body.destroy();
    await store.delete(key);
    throw new AppError('NOT_FOUND', 'no such file');
  }
  res.status(read.contentRange ? 206 : 200);
  res.setHeader('Content-Type', read.info.contentType);
  res.setHeader('Content-Length', String(read.length));
  res.setHeader('Accept-Ranges', 'bytes');
  if (read.contentRange) res.setHeader('Content-Range', read.contentRange);
  if (read.info.etag) res.setHeader('ETag', read.info.etag);
  res.setHeader('Last-Modified', read.info.lastModified.toUTCString());
  // Uploaded bytes served from the api's origin: never let a browser run them.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  if (req.method === 'HEAD') {
    read.body.destroy();
    res.end();
    return;
  }
  await pipeline(read.body, res);
}
