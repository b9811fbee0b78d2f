import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { assertValidKey, assertValidPrefix } from './keys.ts';
import { assertValidMediaType } from './media-type.ts';
import { ByteMeter } from './meter.ts';
import type { BlobSigner } from './signing.ts';
import type { BlobBody, BlobInfo, BlobStore, PresignPutOptions, PutOptions } from './store.ts';

/** Options of {@link FilesystemBlobStore}. */
export interface FilesystemBlobStoreOptions {
  /** Root directory (a PVC in a cluster); `objects/`, `meta/` and `tmp/` are made inside. */
  dir: string;
  /** Where the api serves the files router as clients see it, e.g. `http://127.0.0.1:8080/files`. */
  publicBaseUrl: string;
  signer: BlobSigner;
  /** Per-object size limit of PUTs made with a prefix grant. */
  grantMaxSize: number;
}

interface Meta {
  contentType: string;
  sha256: string;
}

const DEFAULT_TYPE = 'application/octet-stream';

/**
 * Objects as files under `<dir>/objects/<key>`, their content type and hash as JSON under
 * `<dir>/meta/<key>` (separate trees, so no key can collide with another's metadata).
 * Writes go to `<dir>/tmp` first and are renamed into place, so a reader sees the old
 * object or the whole new one, never a partial file.
 */
export class FilesystemBlobStore implements BlobStore {
  readonly type = 'filesystem' as const;
  /** Directory whose relative paths are the keys; the router serves files from it. */
  readonly objectsDir: string;
  readonly #metaDir: string;
  readonly #tmpDir: string;
  readonly #baseUrl: string;
  readonly #signer: BlobSigner;
  readonly #grantMaxSize: number;

  constructor(options: FilesystemBlobStoreOptions) {
    this.objectsDir = join(options.dir, 'objects');
    this.#metaDir = join(options.dir, 'meta');
    this.#tmpDir = join(options.dir, 'tmp');
    this.#baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
    this.#signer = options.signer;
    this.#grantMaxSize = options.grantMaxSize;
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<string> {
    return `${this.publicUrl(key)}?${this.#signer.signPut(key, options)}`;
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.#baseUrl}/${key}`;
  }

  putFile(key: string, filePath: string, contentType: string): Promise<BlobInfo> {
    return this.putStream(key, createReadStream(filePath), contentType);
  }

  async putStream(
    key: string,
    body: BlobBody,
    contentType: string,
    options: PutOptions = {},
  ): Promise<BlobInfo> {
    assertValidMediaType(contentType);
    const dataPath = this.#path(this.objectsDir, key);
    const metaPath = this.#path(this.#metaDir, key);
    const tmpData = join(this.#tmpDir, randomUUID());
    const tmpMeta = `${tmpData}.json`;
    try {
      await mkdir(this.#tmpDir, { recursive: true });
      const meter = new ByteMeter(options.maxSize);
      await pipeline(body, meter.stage(), createWriteStream(tmpData, { flags: 'wx' }));
      const meta: Meta = { contentType, sha256: meter.digest() };
      await writeFile(tmpMeta, JSON.stringify(meta), { flag: 'wx' });
      await Promise.all([
        mkdir(dirname(dataPath), { recursive: true }),
        mkdir(dirname(metaPath), { recursive: true }),
      ]);
      // Metadata first: a reader racing an overwrite may briefly pair the new type with
      // the old bytes, but never finds bytes without their metadata.
      await rename(tmpMeta, metaPath);
      await rename(tmpData, dataPath);
    } catch (error) {
      throw storeFailure(error, this.#tmpDir);
    } finally {
      await Promise.all([rm(tmpData, { force: true }), rm(tmpMeta, { force: true })]);
    }
    const info = await this.stat(key);
    if (!info) throw new Error(`object ${key} vanished right after it was written`);
    return info;
  }

  /**
   * Removes what writes left in `tmp/` that no process is writing any more: a PUT a crash
   * interrupted (one that ends, well or badly, removes its own). A write in progress touches
   * its file with every chunk, and the api ends an upload idle for far less than
   * `olderThanMs`, so a file untouched that long is nobody's, whichever replica sharing the
   * directory made it. Answers how many files went.
   */
  async removeAbandonedWrites(olderThanMs: number, now = Date.now()): Promise<number> {
    const names = await readdir(this.#tmpDir).catch(ifMissing([] as string[]));
    let removed = 0;
    for (const name of names) {
      const path = join(this.#tmpDir, name);
      const stats = await stat(path).catch(ifMissing(undefined));
      if (!stats?.isFile() || now - stats.mtimeMs < olderThanMs) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const stats = await stat(this.#path(this.objectsDir, key)).catch(ifMissing(undefined));
    if (!stats?.isFile()) return undefined;
    const meta = await readFile(this.#path(this.#metaDir, key), 'utf8')
      .then((text) => JSON.parse(text) as Meta)
      .catch(ifMissing(undefined));
    return {
      key,
      size: stats.size,
      contentType: meta?.contentType ?? DEFAULT_TYPE,
      etag: meta ? `"${meta.sha256}"` : undefined,
      lastModified: stats.mtime,
    };
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(this.objectsDir, key), { force: true });
    await rm(this.#path(this.#metaDir, key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    await rm(this.#path(this.objectsDir, prefix), { recursive: true, force: true });
    await rm(this.#path(this.#metaDir, prefix), { recursive: true, force: true });
  }

  grantForPrefix(prefix: string, expiresAt: Date): string {
    return this.#signer.mintGrant(prefix, expiresAt, this.#grantMaxSize);
  }

  #path(root: string, keyOrPrefix: string): string {
    if (!keyOrPrefix.endsWith('/')) assertValidKey(keyOrPrefix);
    const path = join(root, keyOrPrefix);
    // Keys are validated already; this is the last line should that pattern ever loosen.
    if (!path.startsWith(root + sep)) throw new Error(`key escapes the store: ${keyOrPrefix}`);
    return path;
  }
}

/** Errors of the disk itself (full, read-only, not writable): the client is not at fault. */
const STORE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE']);

/**
 * A write the disk refused is the service's trouble, not a bug of the request: 503
 * UNAVAILABLE, retryable, with the cause for the log. Anything else (the client's body
 * ending early, a size past the signed limit) stays as it was.
 */
export function storeFailure(error: unknown, where: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!code || !STORE_ERRORS.has(code)) return error;
  // The log's cause names the store's folder (a failed write(2) names no file); the
  // client's message names none of the server's paths.
  const path = (error as NodeJS.ErrnoException).path;
  const cause = path
    ? error
    : new Error(`${(error as Error).message} (the file store at ${where})`, { cause: error });
  return new AppError('UNAVAILABLE', 'the file store cannot take files right now; retry later', {
    cause,
    retryAfterSeconds: 30,
  });
}

function ifMissing<T>(value: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return value;
    throw error;
  };
}

/** How long a temp file stays untouched before it counts as abandoned (the api ends an upload idle for 60 s, or after 30 minutes). */
const ABANDONED_AFTER_MS = 60 * 60_000;

/**
 * Clears abandoned temp files now and then every `everyMs` (the api, which writes them, runs
 * it); returns its stop. On a shared volume each replica does the same, harmlessly.
 */
export function sweepAbandonedWrites(
  store: FilesystemBlobStore,
  log: Logger,
  everyMs = 60 * 60_000,
): () => void {
  const sweep = () =>
    store.removeAbandonedWrites(ABANDONED_AFTER_MS).then(
      (removed) => {
        if (removed > 0) log.info({ removed }, 'removed the temp files of writes a crash interrupted');
      },
      (err: unknown) =>
        log.warn(
          { err: (err as Error).message },
          'the temp files of interrupted writes could not be cleared',
        ),
    );
  void sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
