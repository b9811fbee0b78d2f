import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { FilesystemBlobStore, storeFailure } from './filesystem.ts';
import { createBlobRouter, UPLOAD_PUTS_PER_ACCOUNT } from './routes.ts';
import { BlobSigner } from './signing.ts';
import { uploadWithGrant } from './upload-client.ts';

const START = Date.parse('2030-01-01T00:00:00Z');
let clock = START;
let dir: string;
let server: http.Server;
let base: string;
let store: FilesystemBlobStore;

// Stands in for the api's shared problem+json middleware.
function problems(error: unknown, _req: Request, res: Response, _next: NextFunction) {
  const e = error instanceof AppError ? error : new AppError('INTERNAL', String(error));
  res
    .status(e.status)
    .type('application/problem+json')
    .json({ status: e.status, code: e.code, detail: e.message });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-blob-'));
  const signer = new BlobSigner({ secrets: ['s'.repeat(32)], now: () => clock });
  const app = express();
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/files`;
  store = new FilesystemBlobStore({ dir, publicBaseUrl: base, signer, grantMaxSize: 1024 });
  // Job "ended"'s files are final, as the api's job cache would say.
  const grantOpen = (key: string) => !key.startsWith('jobs/ended/');
  app.use('/files', createBlobRouter({ store, signer, grantOpen }));
  app.use(problems);
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  clock = START;
});

const minutes = (n: number) => new Date(clock + n * 60_000);
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

async function presign(key: string, contentType = 'image/png', maxSize = 1000): Promise<string> {
  return store.presignPut(key, { contentType, maxSize, expiresAt: minutes(15) });
}

function put(url: string, body: Buffer, headers: Record<string, string> = { 'content-type': 'image/png' }) {
  return fetch(url, { method: 'PUT', body, headers });
}

async function code(response: globalThis.Response): Promise<string> {
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return ((await response.json()) as { code: string }).code;
}

async function leftovers(): Promise<string[]> {
  const tmp = await readdir(join(dir, 'tmp')).catch(() => []);
  return tmp;
}

describe('presigned upload', () => {
  it('stores the PUT body and serves the same bytes with type, length, ETag and Last-Modified', async () => {
    const body = bytes(700);
    const put1 = await put(await presign('uploads/acme/f1'), body);
    expect(put1.status).toBe(200);
    const got = await fetch(`${base}/uploads/acme/f1`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(body);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('content-length')).toBe('700');
    expect(got.headers.get('etag')).toBe(put1.headers.get('etag'));
    expect(got.headers.get('etag')).toMatch(/^"[\w-]{43}"$/);
    expect(got.headers.get('last-modified')).toBeTruthy();
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['a different type', { 'content-type': 'image/jpeg' }],
    ['no type', {}],
  ])('refuses %s than the presigned one with 415 and stores nothing', async (_, headers) => {
    const response = await put(await presign('uploads/acme/ct'), bytes(10), headers);
    expect(response.status).toBe(415);
    expect(await code(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await store.stat('uploads/acme/ct')).toBeUndefined();
  });

  it('accepts the presigned type with parameters and stores the presigned type', async () => {
    await put(await presign('uploads/acme/params'), bytes(5), { 'content-type': 'IMAGE/PNG; x=1' });
    expect((await store.stat('uploads/acme/params'))?.contentType).toBe('image/png');
  });

  it('refuses a declared Content-Length over maxSize with 413 before reading', async () => {
    const response = await put(await presign('uploads/acme/big'), bytes(1001));
    expect(response.status).toBe(413);
    expect(await code(response)).toBe('PAYLOAD_TOO_LARGE');
    expect(await store.stat('uploads/acme/big')).toBeUndefined();
  });

  it('accepts a body of exactly maxSize', async () => {
    expect((await put(await presign('uploads/acme/exact'), bytes(1000))).status).toBe(200);
  });

  it('answers 413 mid-stream on a chunked body, stops reading and keeps no partial file', async () => {
    const url = new URL(await presign('uploads/acme/stream', 'image/png', 64 * 1024));
    const request = http.request(url, { method: 'PUT', headers: { 'content-type': 'image/png' } });
    let written = 0;
    let writtenAtResponse = -1;
    let status = 0;
    request.on('response', (response) => {
      writtenAtResponse = written;
      status = response.statusCode ?? 0;
      response.resume();
    });
    const closed = new Promise<void>((resolve) => {
      request.on('error', () => resolve());
      request.on('close', () => resolve());
    });
    let open = true;
    void closed.then(() => {
      open = false;
    });
    const chunk = bytes(16 * 1024);
    for (let i = 0; i < 400 && open; i++) {
      request.write(chunk);
      written += chunk.length;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await closed;
    expect(status).toBe(413);
    expect(writtenAtResponse).toBeGreaterThan(64 * 1024);
    expect(writtenAtResponse).toBeLessThan(2 * 1024 * 1024);
    expect(written).toBeLessThan(400 * chunk.length); // the socket closed before we were done
    expect(await store.stat('uploads/acme/stream')).toBeUndefined();
    expect(await leftovers()).toEqual([]);
  });

  it('refuses an expired signature with 403', async () => {
    const url = await presign('uploads/acme/late');
    clock += 15 * 60_000;
    const response = await put(url, bytes(10));
    expect(response.status).toBe(403);
    expect(await code(response)).toBe('SIGNATURE_INVALID');
  });

  it.each([
    ['a raised maxSize', (u: URL) => u.searchParams.set('maxSize', '999999')],
    ['another content type', (u: URL) => u.searchParams.set('contentType', 'image/jpeg')],
    [
      'a later expiry',
      (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 1)),
    ],
    ['another key', (u: URL) => (u.pathname = u.pathname.replace('/f2', '/f3'))],
    [
      'a changed signature',
      (u: URL) => u.searchParams.set('signature', `A${u.searchParams.get('signature')?.slice(1)}`),
    ],
    ['no signature', (u: URL) => u.searchParams.delete('signature')],
  ])('refuses a URL with %s with 403', async (_, tamper) => {
    const url = new URL(await presign('uploads/acme/f2'));
    tamper(url);
    const headers = { 'content-type': url.searchParams.get('contentType') ?? 'image/png' };
    const response = await put(url.href, bytes(10), headers);
    expect(response.status).toBe(403);
    expect(await code(response)).toBe('SIGNATURE_INVALID');
    expect(await store.stat('uploads/acme/f3')).toBeUndefined();
  });
});

describe('PUTs in progress', () => {
  /** A PUT whose body is still coming: `end` sends the rest. */
  async function slowPut(url: string) {
    const request = http.request(url, { method: 'PUT', headers: { 'content-type': 'image/png' } });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      request.on('response', resolve);
      request.on('error', reject);
    });
    request.write(bytes(10));
    // The server has taken the key once the first bytes reached the store.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return {
      end: async () => {
        request.end(bytes(10));
        const res = await response;
        res.resume();
        return res.statusCode;
      },
    };
  }

  it('takes one PUT of an upload at a time: a second one while the first streams is 429, retryable', async () => {
    const url = await presign('uploads/acme/once');
    const first = await slowPut(url);
    const second = await put(url, bytes(20));
    expect([second.status, await code(second)]).toEqual([429, 'RATE_LIMITED']);
    expect(await first.end()).toBe(200);
    expect((await store.stat('uploads/acme/once'))?.size).toBe(20);
    // Once it ended, the URL may be used again (within its 15 minutes).
    expect((await put(url, bytes(30))).status).toBe(200);
  });

  it(`lets one account stream at most ${UPLOAD_PUTS_PER_ACCOUNT} uploads at once; others are not held up`, async () => {
    const streaming = [];
    for (let i = 0; i < UPLOAD_PUTS_PER_ACCOUNT; i++)
      streaming.push(await slowPut(await presign(`uploads/busy/f${i}`)));
    const over = await put(await presign('uploads/busy/one-more'), bytes(10));
    expect([over.status, await code(over)]).toEqual([429, 'RATE_LIMITED']);
    expect((await put(await presign('uploads/calm/f0'), bytes(10))).status).toBe(200);
    for (const s of streaming) expect(await s.end()).toBe(200);
    expect((await put(await presign('uploads/busy/one-more'), bytes(10))).status).toBe(200);
    expect(await leftovers()).toEqual([]);
  });
});

/** Sends a raw request line, so the path reaches the server exactly as written. */
async function raw(method: string, path: string, body = ''): Promise<number> {
  const request = http.request(`${base.replace('/files', '')}${path}`, {
    method,
    headers: { 'content-type': 'image/png' },
  });
  request.path = path;
  request.end(body);
  const [response] = (await once(request, 'response')) as [http.IncomingMessage];
  response.resume();
  return response.statusCode ?? 0;
}

describe('paths', () => {
  it.each([
    '/files/../../etc/passwd',
    '/files/uploads/acme/..%2f..%2f..%2fetc%2fpasswd',
    '/files/%2e%2e/%2e%2e/escape',
    '/files/uploads/acme/.hidden',
    '/files/uploads//acme',
    '/files/Uploads/acme/x',
  ])('refuses %s for PUT (403) and GET (404) and writes nothing outside the store', async (path) => {
    const query = new URL(await presign('uploads/acme/ok')).search;
    expect(await raw('PUT', path + query, 'x')).toBe(403);
    expect(await raw('GET', path)).toBe(404);
    expect(await readdir(join(dir, '..'))).not.toContain('escape');
  });

  it('answers a method /files does not have with 405 and Allow, and OPTIONS with 204 and Allow', async () => {
    await put(await presign('uploads/acme/kept'), bytes(3));
    for (const method of ['DELETE', 'POST', 'PATCH']) {
      const res = await fetch(`${base}/uploads/acme/kept`, { method });
      expect([res.status, res.headers.get('allow'), await code(res)]).toEqual([
        405,
        'GET, HEAD, OPTIONS, PUT',
        'METHOD_NOT_ALLOWED',
      ]);
    }
    const options = await fetch(`${base}/uploads/acme/kept`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS, PUT']);
    expect((await fetch(`${base}/uploads/acme/kept`)).status).toBe(200);
  });

  it('does not serve metadata or temporary files', async () => {
    await put(await presign('uploads/acme/m'), bytes(3));
    expect(await raw('GET', '/files/../meta/uploads/acme/m')).toBe(404);
    expect((await fetch(`${base}/meta/uploads/acme/m`)).status).toBe(404);
  });
});

describe('public reads', () => {
  const key = 'jobs/j1/output-0.mp4';
  const body = bytes(1000);

  beforeAll(async () => {
    const file = join(dir, 'src.bin');
    await writeFile(file, body);
    await store.putFile(key, file, 'video/mp4');
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(`${base}/${key}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('1000');
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(await response.text()).toBe('');
  });

  it.each([
    ['bytes=0-9', 0, 10, 'bytes 0-9/1000'],
    ['bytes=990-', 990, 1000, 'bytes 990-999/1000'],
    ['bytes=-5', 995, 1000, 'bytes 995-999/1000'],
  ])('answers Range %s with 206 and the slice', async (range, from, to, contentRange) => {
    const response = await fetch(`${base}/${key}`, { headers: { range } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(contentRange);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(body.subarray(from, to));
  });

  it('answers an unsatisfiable range with 416 and Content-Range */size', async () => {
    const response = await fetch(`${base}/${key}`, { headers: { range: 'bytes=1000-' } });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */1000');
  });

  // Through node:http: fetch adds `Cache-Control: no-cache` to conditional requests,
  // which makes any server answer in full.
  it.each([
    ['the current ETag', (etag: string) => etag, 304],
    ['a weak form of the current ETag', (etag: string) => `W/${etag}`, 304],
    ['another ETag', () => '"other"', 200],
  ])('answers If-None-Match with %s with %i', async (_, header, status) => {
    const etag = (await fetch(`${base}/${key}`, { method: 'HEAD' })).headers.get('etag') ?? '';
    const [response] = (await once(
      http.get(`${base}/${key}`, { headers: { 'if-none-match': header(etag) } }),
      'response',
    )) as [http.IncomingMessage];
    response.resume();
    expect(response.statusCode).toBe(status);
  });

  it('answers 404 NOT_FOUND for a missing key and after delete', async () => {
    const missing = await fetch(`${base}/jobs/j1/nothing.png`);
    expect(missing.status).toBe(404);
    expect(await code(missing)).toBe('NOT_FOUND');
    await store.putFile('jobs/j9/a.png', join(dir, 'src.bin'), 'image/png');
    await store.deletePrefix('jobs/j9/');
    expect((await fetch(`${base}/jobs/j9/a.png`)).status).toBe(404);
  });
});

describe('prefix grants', () => {
  let file: string;
  beforeAll(async () => {
    file = join(dir, 'out.png');
    await writeFile(file, bytes(300));
  });

  it('lets the worker PUT under its prefix, readable afterwards', async () => {
    const grant = store.grantForPrefix('jobs/j2/', minutes(60));
    const uploaded = await uploadWithGrant(base, grant, 'jobs/j2/output-0.png', file, 'image/png');
    expect(uploaded).toMatchObject({ key: 'jobs/j2/output-0.png', size: 300 });
    const got = await fetch(store.publicUrl('jobs/j2/output-0.png'));
    expect(Buffer.from(await got.arrayBuffer())).toEqual(await readFile(file));
    expect(got.headers.get('content-type')).toBe('image/png');
  });

  it('gives up a PUT that gets no answer by its deadline, as one to try again', async () => {
    // An api (or a store behind it) that reads the file and then says nothing.
    const silent = http.createServer((req) => req.resume());
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const at = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/files`;
      const grant = store.grantForPrefix('jobs/j2/', minutes(60));
      const put = uploadWithGrant(at, grant, 'jobs/j2/late.png', file, 'image/png', fetch, 300);
      await expect(put).rejects.toMatchObject({
        name: 'UploadFailed',
        retryable: true,
        message: /got no answer/,
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it.each([
    ['another job', 'jobs/j3/output-0.png'],
    ['a sibling prefix', 'jobs/j2x/output-0.png'],
    ['an upload', 'uploads/acme/f1'],
  ])('refuses a key of %s with 403', async (_, key) => {
    const grant = store.grantForPrefix('jobs/j2/', minutes(60));
    await expect(uploadWithGrant(base, grant, key, file, 'image/png')).rejects.toThrow(/HTTP 403/);
  });

  it.each([
    ['an expired grant', () => store.grantForPrefix('jobs/j2/', minutes(-1))],
    [
      'a grant with a widened prefix',
      () =>
        store
          .grantForPrefix('jobs/j2/', minutes(60))
          .replace(/^gj1\.[^.]+/, `gj1.${Buffer.from('jobs/').toString('base64url')}`),
    ],
    [
      'a presigned URL signature used as a grant',
      async () => new URL(await presign('jobs/j2/x.png')).searchParams.get('signature') ?? '',
    ],
  ])('refuses %s with 403', async (_, grant) => {
    await expect(uploadWithGrant(base, await grant(), 'jobs/j2/x.png', file, 'image/png')).rejects.toThrow(
      /HTTP 403/,
    );
  });

  it.each(['text/html', 'image/svg+xml', 'application/octet-stream'])(
    'refuses a file of type %s with 415: a job stores media only',
    async (type) => {
      const grant = store.grantForPrefix('jobs/j2/', minutes(60));
      await expect(uploadWithGrant(base, grant, 'jobs/j2/page', file, type)).rejects.toThrow(/HTTP 415/);
      expect((await fetch(store.publicUrl('jobs/j2/page'))).status).toBe(404);
    },
  );

  it('refuses a valid grant once its job has ended, so a delivered output cannot be replaced', async () => {
    const grant = store.grantForPrefix('jobs/ended/', minutes(60));
    await expect(uploadWithGrant(base, grant, 'jobs/ended/output-0.png', file, 'image/png')).rejects.toThrow(
      /HTTP 403/,
    );
    expect((await fetch(store.publicUrl('jobs/ended/output-0.png'))).status).toBe(404);
  });

  it('refuses an output larger than the grant limit with 413', async () => {
    const large = join(dir, 'large.bin');
    await writeFile(large, bytes(1025));
    const grant = store.grantForPrefix('jobs/j2/', minutes(60));
    await expect(uploadWithGrant(base, grant, 'jobs/j2/large.bin', large, 'image/png')).rejects.toThrow(
      /HTTP 413/,
    );
  });
});

describe('a disk that refuses the write', () => {
  it("names the store's folder in the cause when the error names no file (a write(2) on a full disk)", () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const error = storeFailure(full, '/data/blobs/tmp') as AppError;
    expect(error.message).toBe('the file store cannot take files right now; retry later');
    expect((error.cause as Error).message).toBe(
      'ENOSPC: no space left on device, write (the file store at /data/blobs/tmp)',
    );
    expect((error.cause as Error).cause).toBe(full);
  });

  it('is 503 UNAVAILABLE, retryable, with the cause kept for the log: the request was not at fault', async () => {
    // /sys takes no new directories (EPERM, or EACCES for a user that is not root).
    const signer = new BlobSigner({ secrets: ['s'.repeat(32)], now: () => clock });
    const broken = new FilesystemBlobStore({
      dir: '/sys/genjobs-blob-test',
      publicBaseUrl: base,
      signer,
      grantMaxSize: 1024,
    });
    const error = await broken
      .putStream('uploads/acme/full', Readable.from([bytes(10)]), 'image/png')
      .catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 30 });
    expect(['EPERM', 'EACCES']).toContain(
      (error as AppError).cause && ((error as AppError).cause as NodeJS.ErrnoException).code,
    );
  });
});
