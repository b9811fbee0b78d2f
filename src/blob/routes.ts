import { type NextFunction, type Request, type Response, Router } from 'express';
import { AppError } from '../errors.ts';
import { continueIfExpected } from '../expect-continue.ts';
import { refuseMethod } from '../method-not-allowed.ts';
import { FilesystemBlobStore } from './filesystem.ts';
import { isServiceKey, isValidKey } from './keys.ts';
import { essence, isValidMediaType, OUTPUT_MEDIA, sameMediaType } from './media-type.ts';
import { S3BlobStore } from './s3.ts';
import { type ReadLimit, serveFromS3 } from './s3-read.ts';
import type { BlobSigner } from './signing.ts';
import type { BlobStore } from './store.ts';

/** What the files router needs. */
export interface BlobRouterOptions {
  store: BlobStore;
  /** The signer the store signs with; the router verifies URLs and grants with it. */
  signer: BlobSigner;
  /** s3: the largest an upload may be to be served (see s3-read.ts). */
  readLimit?: ReadLimit;
  /**
   * Whether a worker's grant may still write `key`: the api answers from its job cache (the
   * key's job exists and has not ended), so a grant read from a finished Pod's spec cannot
   * replace a delivered output. Absent: until the grant expires.
   */
  grantOpen?: (key: string) => boolean;
  /**
   * Whether a presigned upload may still write `key`: its Upload exists and is the key's
   * (the api asks its cache, then the apiserver), so a file PUT after its Upload was deleted
   * (by an operator, with its account) does not come back with nothing left to delete it.
   * Absent: until the URL expires.
   */
  uploadOpen?: (key: string) => Promise<boolean>;
}

interface Permission {
  maxSize: number;
  /** The Content-Type the upload was signed for; undefined for grants (one of OUTPUT_MEDIA). */
  contentType: string | undefined;
}

/**
 * The `/files` router, mounted by the api before any body parser:
 * - `PUT /files/<key>?expires&contentType&maxSize&signature`: a presigned upload;
 * - `PUT /files/<key>` with `Authorization: Bearer <grant>`: a worker's output under its prefix;
 * - `GET|HEAD /files/<key>`: public reads with ETag, Last-Modified, conditional and range
 *   requests (filesystem store; with s3 the public URLs point at the bucket or CDN, and
 *   only the service's own objects, uploads and job outputs, are served here, for worker
 *   Pods: s3-read.ts);
 * - CORS for browsers on every route, and `OPTIONS` preflights answered here.
 * Errors go to `next(err)` as AppErrors for the shared problem+json middleware.
 */
export function createBlobRouter(options: BlobRouterOptions): Router {
  const router = Router();
  const inFlight = new PutsInFlight();
  router.use((req, res, next) => {
    // Pages on any origin may read files (they are public) and PUT to a presigned address
    // (the address is the permission): a web app uploads straight from the browser. No
    // credentials ride along, and `authorization` is not an allowed header, so a worker's
    // grant is never sent from a page.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader(
      'Access-Control-Expose-Headers',
      'ETag, Content-Range, Accept-Ranges, Retry-After, x-request-id',
    );
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, PUT');
      res.setHeader(
        'Access-Control-Allow-Headers',
        'content-type, range, if-none-match, if-modified-since, if-range',
      );
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return;
    }
    if (req.method === 'PUT') {
      // A failed upload usually leaves body bytes unread: close the connection after the
      // error response instead of letting Node drain (read) the rest of the body.
      put(options, inFlight, req, res).catch((error: unknown) => {
        if (!req.complete) res.setHeader('Connection', 'close');
        next(error);
      });
    } else if (
      (req.method === 'GET' || req.method === 'HEAD') &&
      options.store instanceof FilesystemBlobStore
    ) {
      get(options.store, req, res, next).catch(next);
    } else if ((req.method === 'GET' || req.method === 'HEAD') && options.store instanceof S3BlobStore) {
      // Reads use the api's bucket credentials: only the service's own objects, whatever
      // else the bucket holds.
      const key = keyOf(req);
      if (key === undefined || !isServiceKey(key)) next(new AppError('NOT_FOUND', 'no such file'));
      else
        serveFromS3(options.store, key, req, res, options.readLimit).catch((error: unknown) => {
          if (res.headersSent) res.destroy();
          else next(error);
        });
    } else if (!FILE_METHODS.includes(req.method)) {
      // As the API's paths answer a method they do not have.
      refuseMethod(req, res, next, FILE_METHODS);
    } else {
      next();
    }
  });
  return router;
}

const FILE_METHODS = ['GET', 'HEAD', 'PUT'];

/** PUTs of presigned uploads one account may have streaming into one api replica at once. */
export const UPLOAD_PUTS_PER_ACCOUNT = 8;

/**
 * The PUTs streaming into this replica: one at a time per key, and at most
 * {@link UPLOAD_PUTS_PER_ACCOUNT} per account for uploads. A presigned URL stays valid for
 * its 15 minutes, and each PUT streams into a temporary file of up to the upload's size
 * until it ends: 25 parallel PUTs of one 100 MB upload held 2.4 GB of the shared store
 * while the account's quota counted 100 MB. A second PUT of a key waits for the first
 * (a client retrying before the server saw its dropped connection: that ends within the
 * request timeout).
 */
class PutsInFlight {
  private readonly keys = new Set<string>();
  private readonly perAccount = new Map<string, number>();

  /** Takes `key` for one PUT, or throws RATE_LIMITED; the function it returns gives it back. */
  claim(key: string): () => void {
    if (this.keys.has(key)) {
      throw new AppError('RATE_LIMITED', 'an upload to this URL is already in progress', {
        retryAfterSeconds: 5,
      });
    }
    const account = key.startsWith('uploads/') ? key.split('/')[1] : undefined;
    const running = account === undefined ? 0 : (this.perAccount.get(account) ?? 0);
    if (running >= UPLOAD_PUTS_PER_ACCOUNT) {
      throw new AppError(
        'RATE_LIMITED',
        `at most ${UPLOAD_PUTS_PER_ACCOUNT} uploads of an account may be in progress at once`,
        { retryAfterSeconds: 5 },
      );
    }
    this.keys.add(key);
    if (account !== undefined) this.perAccount.set(account, running + 1);
    return () => {
      this.keys.delete(key);
      if (account === undefined) return;
      const left = (this.perAccount.get(account) ?? 1) - 1;
      if (left > 0) this.perAccount.set(account, left);
      else this.perAccount.delete(account);
    };
  }
}

async function put(
  options: BlobRouterOptions,
  inFlight: PutsInFlight,
  req: Request,
  res: Response,
): Promise<void> {
  const key = keyOf(req);
  if (key === undefined) throw new AppError('SIGNATURE_INVALID', 'no upload is allowed to this path');
  const permission = await authorize(options, req, key);
  const given = req.headers['content-type'];
  if (permission.contentType !== undefined && !sameMediaType(given, permission.contentType)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be ${permission.contentType}, as presigned`,
    );
  }
  if (
    permission.contentType === undefined &&
    (given === undefined || !isValidMediaType(given) || !Object.hasOwn(OUTPUT_MEDIA, essence(given)))
  ) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `a job's file is one of ${Object.keys(OUTPUT_MEDIA).join(', ')}`,
    );
  }
  const declared =
    req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (declared !== undefined && declared > permission.maxSize) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `the body is larger than the limit of ${permission.maxSize} bytes`,
    );
  }
  const release = inFlight.claim(key);
  // Node's automatic 100 is off (api/server.ts): a client waiting for it sends the file now.
  continueIfExpected(req, res);
  let info: Awaited<ReturnType<BlobStore['putStream']>>;
  try {
    // Not destroyed when storage stops early, so the 413 can still be written on its socket.
    const body = req.iterator({ destroyOnReturn: false });
    info = await options.store.putStream(key, body, permission.contentType ?? (given as string), {
      maxSize: permission.maxSize,
      size: declared,
    });
  } finally {
    release();
  }
  if (info.etag) res.setHeader('ETag', info.etag);
  res.status(200).end();
}

/** The signature's permission, once what it was given for is still open (its job, its Upload). */
async function authorize(options: BlobRouterOptions, req: Request, key: string): Promise<Permission> {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    if (!token) throw new AppError('SIGNATURE_INVALID', 'malformed Authorization header');
    const { maxSize } = options.signer.verifyGrant(token, key);
    if (options.grantOpen && !options.grantOpen(key)) {
      throw new AppError('SIGNATURE_INVALID', "the grant's job has ended; its files are final");
    }
    return { maxSize, contentType: undefined };
  }
  const permission = options.signer.verifyPut(key, req.query);
  if (options.uploadOpen && !(await options.uploadOpen(key))) {
    throw new AppError('SIGNATURE_INVALID', 'this upload no longer exists; presign a new one');
  }
  return permission;
}

async function get(
  store: FilesystemBlobStore,
  req: Request,
  res: Response,
  next: NextFunction,
): Promise<void> {
  const key = keyOf(req);
  const info = key === undefined ? undefined : await store.stat(key);
  if (key === undefined || !info) throw new AppError('NOT_FOUND', 'no such file');
  res.setHeader('Content-Type', info.contentType);
  if (info.etag) res.setHeader('ETag', info.etag);
  // Uploaded bytes are served from the api's origin: never let a browser run them.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.sendFile(key, { root: store.objectsDir, dotfiles: 'deny' }, (error?: Error & { status?: number }) => {
    if (!error || res.headersSent) return;
    if (error.status === 416 || error.status === 412) {
      // Protocol answers for range and precondition headers, not failures: the status
      // (and Content-Range, set by send) is what a media player acts on; there is no
      // AppError code for them, so no problem body either.
      res.removeHeader('Content-Type');
      res.status(error.status).setHeader('Content-Length', '0');
      res.end();
    } else if (error.status === 404) {
      next(new AppError('NOT_FOUND', 'no such file'));
    } else {
      next(error);
    }
  });
}

/** The key named by the request path, taken raw (never percent-decoded), if it is a valid key. */
function keyOf(req: Request): string | undefined {
  const key = req.path.slice(1);
  return isValidKey(key) ? key : undefined;
}
