import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFolder, uploadKey } from '../../src/blob/keys.ts';
import { BlobSigner } from '../../src/blob/signing.ts';
import type { RunningController } from '../../src/controller/main.ts';
import { eventually } from '../support/cluster.ts';
import { startTestController, TestClock } from '../support/controller.ts';
import { checkedFetch, startTestApi, type TestResponse, type TestService } from '../support/service.ts';

const MIN = 60_000;
const IMAGE_MAX = 10_485_760;

let svc: TestService;
let key: string;
let other: string;
/** The Accounts' uids: an account's upload folder is a digest of its uid. */
let acmeUid: string;
let globexUid: string;
let controller: RunningController | undefined;
const clock = new TestClock();

beforeAll(async () => {
  svc = await startTestApi('uploads');
  // Presign needs submit_job (it stores the caller's bytes); this key has nothing else.
  key = await svc.account({ name: 'acme' }, ['submit_job']);
  other = await svc.account({ name: 'globex' });
  acmeUid = (await svc.r.accounts.get('acme'))!.metadata.uid!;
  globexUid = (await svc.r.accounts.get('globex'))!.metadata.uid!;
  controller = await startTestController(svc, { clock });
});
afterAll(async () => {
  await controller?.stop();
  await svc?.stop();
});

/** The api listens on a random port; the URLs it hands out name the configured public one. */
const local = (url: string) => {
  const u = new URL(url);
  return `${svc.api.url}${u.pathname}${u.search}`;
};

/** The upload endpoints, every answer checked against the OpenAPI document. */
function call(
  path: string,
  init: { key?: string; method?: string; json?: unknown } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return checkedFetch(`${svc.api.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
}

function presign(body: unknown, k = key): Promise<TestResponse> {
  return call('/v1/uploads/presign', { method: 'POST', key: k, json: body });
}

async function presigned(filename = 'cat.png', contentType = 'image/png') {
  const res = await presign({ filename, contentType });
  expect(res.status).toBe(200);
  return (await res.json()).data as {
    uploadUrl: string;
    fileUrl: string;
    fileId: string;
    expiresAt: string;
    maxSize: number;
  };
}

function put(url: string, body: Uint8Array, contentType = 'image/png') {
  return fetch(local(url), { method: 'PUT', body, headers: { 'content-type': contentType } });
}

/** A PUT through node:http, which reports the answer even when the server closes mid-body. */
function rawPut(url: string, body: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(local(url), { method: 'PUT', headers });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function expectProblem(res: TestResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect(body).toMatchObject({ success: false, status, code, requestId: res.headers.get('x-request-id') });
  return body;
}

describe('presign, upload, read', () => {
  it('presign → PUT → GET fileUrl returns the same bytes; the status record shows it pending', async () => {
    const before = Date.now();
    const res = await presign({ filename: 'cat.png', contentType: 'image/png' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'requestId', 'success']);
    expect(body.success).toBe(true);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    const data = body.data;
    expect(Object.keys(data).sort()).toEqual(['expiresAt', 'fileId', 'fileUrl', 'maxSize', 'uploadUrl']);
    expect(data.fileId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data.maxSize).toBe(IMAGE_MAX);
    expect(Date.parse(data.expiresAt) - before).toBeGreaterThanOrEqual(60 * MIN);
    expect(Date.parse(data.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * MIN);
    expect(new URL(data.uploadUrl).searchParams.get('expires')).toBe(
      String(Math.floor((Date.parse(data.expiresAt) - 45 * MIN) / 1000)),
    );

    const bytes = randomBytes(200_000);
    expect((await put(data.uploadUrl, bytes)).status).toBe(200);
    const got = await fetch(local(data.fileUrl));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    const status = await call(`/v1/uploads/${data.fileId}`, { key });
    expect(status.status).toBe(200);
    const record = await status.json();
    expect(record).toMatchObject({ success: true, requestId: status.headers.get('x-request-id') });
    expect(record.data).toEqual({
      id: data.fileId,
      filename: 'cat.png',
      contentType: 'image/png',
      fileUrl: data.fileUrl,
      status: 'pending',
      createdAt: expect.any(String),
      expiresAt: data.expiresAt,
      uploaded: true,
      sizeBytes: bytes.length,
    });
    expect(Math.abs(Date.parse(record.data.createdAt) - before)).toBeLessThan(5_000);
    // Spec 2.5: deleted 60 minutes after creation, to the millisecond.
    expect(Date.parse(record.data.expiresAt) - Date.parse(record.data.createdAt)).toBe(60 * MIN);

    // The controller looks at live uploads every 30 s and records the size.
    clock.advance(31_000);
    const cr = await eventually(async () => {
      const u = await svc.r.uploads.get(data.fileId);
      return u?.status?.size === bytes.length && u;
    });
    expect(cr.spec).toMatchObject({ account: 'acme', objectKey: uploadKey(acmeUid, data.fileId) });
  });

  it.each([
    ['image/jpeg', 10_485_760],
    ['image/webp', 10_485_760],
    ['image/gif', 10_485_760],
    ['video/mp4', 104_857_600],
    ['video/webm', 104_857_600],
    ['audio/mpeg', 52_428_800],
    ['audio/wav', 52_428_800],
  ])('%s may be up to %d bytes', async (contentType, maxSize) => {
    expect((await presigned('f.bin', contentType)).maxSize).toBe(maxSize);
  });

  it("keeps a path-like filename as metadata only: the object key is the account's folder and the fileId", async () => {
    const data = await presigned('../../etc/passwd', 'image/png');
    // The folder is a digest of the Account's uid: a public URL does not say whose file it
    // is, and guessing names does not tell (the digest of the name is not it either).
    expect(new URL(data.fileUrl).pathname).toBe(`/files/uploads/${uploadFolder(acmeUid)}/${data.fileId}`);
    expect(data.fileUrl).not.toContain('acme');
    expect(data.fileUrl).not.toContain(uploadFolder('acme'));
    expect((await put(data.uploadUrl, Buffer.from('x'))).status).toBe(200);
    const record = await (await call(`/v1/uploads/${data.fileId}`, { key })).json();
    expect(record.data.filename).toBe('../../etc/passwd');
  });

  it('a PUT with Expect: 100-continue (curl, for files over 1 MB) is invited once its signature is checked', async () => {
    const data = await presigned();
    const png = randomBytes(2048);
    const answer = (url: string) =>
      new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
        let continued = false;
        const req = http.request(local(url), {
          method: 'PUT',
          headers: { 'content-type': 'image/png', 'content-length': png.length, expect: '100-continue' },
        });
        req.on('continue', () => {
          continued = true;
          req.end(png);
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, continued }));
        });
        req.on('error', reject);
      });
    expect(await answer(data.uploadUrl)).toEqual({ status: 200, continued: true });
    expect(Buffer.from(await (await fetch(local(data.fileUrl))).arrayBuffer())).toEqual(png);
    // A forged signature is refused before the body is asked for.
    const forged = data.uploadUrl.replace(/signature=[^&]+/, 'signature=AAAA');
    expect(await answer(forged)).toEqual({ status: 403, continued: false });
  });

  it('an Upload deleted by hand takes its file with it (the queue key names the file)', async () => {
    const data = await presigned();
    expect((await put(data.uploadUrl, Buffer.from('gone soon'))).status).toBe(200);
    expect((await fetch(local(data.fileUrl))).status).toBe(200);
    await svc.r.uploads.delete(data.fileId);
    await eventually(
      async () => (await fetch(local(data.fileUrl))).status === 404,
      15_000,
      'the file deleted',
    );
    expect(await svc.api.blob.store.stat(uploadKey(acmeUid, data.fileId))).toBeUndefined();
  });

  it('a PUT after its Upload was deleted is refused: no file comes back that nothing would delete', async () => {
    const data = await presigned();
    await svc.r.uploads.delete(data.fileId);
    // Gone from the api's cache too (a GET answers from it), not only from etcd.
    await eventually(async () => (await call(`/v1/uploads/${data.fileId}`, { key })).status === 404);
    const res = await rawPut(data.uploadUrl, Buffer.from('late'), { 'content-type': 'image/png' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'SIGNATURE_INVALID', detail: /no longer exists/ });
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
  });

  it('reads an upload written a moment ago even before the cache has it; not uploaded until its PUT', async () => {
    const data = await presigned();
    const res = await call(`/v1/uploads/${data.fileId}`, { key });
    expect(res.status).toBe(200);
    const { data: record } = await res.json();
    expect(record).toMatchObject({ status: 'pending', uploaded: false });
    expect(record).not.toHaveProperty('sizeBytes');
  });
});

describe('upload errors', () => {
  it.each([
    ['no filename', 'VALIDATION_ERROR', { contentType: 'image/png' }],
    ['an empty filename', 'VALIDATION_ERROR', { filename: '  ', contentType: 'image/png' }],
    ['a filename that is not a string', 'VALIDATION_ERROR', { filename: 42, contentType: 'image/png' }],
    ['a filename with a newline', 'VALIDATION_ERROR', { filename: 'a\nb.png', contentType: 'image/png' }],
    ['no contentType', 'VALIDATION_ERROR', { filename: 'a.png' }],
    ['an unknown field', 'VALIDATION_ERROR', { filename: 'a.png', contentType: 'image/png', size: 3 }],
    [
      'a contentType not in the list',
      'INVALID_CONTENT_TYPE',
      { filename: 'a.txt', contentType: 'text/plain' },
    ],
    ['image/svg+xml', 'INVALID_CONTENT_TYPE', { filename: 'a.svg', contentType: 'image/svg+xml' }],
  ])('presign with %s is a 400 %s', async (_, code, body) => {
    await expectProblem(await presign(body), 400, code);
  });

  it("presign with a body that is not JSON is a 400 VALIDATION_ERROR, the upload API's own code", async () => {
    const res = await checkedFetch(`${svc.api.url}/v1/uploads/presign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"filename":"a.png",',
    });
    await expectProblem(res, 400, 'VALIDATION_ERROR');
  });

  it('presign with a key lacking submit_job is a 403 INSUFFICIENT_SCOPE, wrapped', async () => {
    const readOnly = await svc.account({ name: 'dashboard' }, ['list_models', 'check_status']);
    await expectProblem(
      await presign({ filename: 'a.png', contentType: 'image/png' }, readOnly),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });

  it('presign without a key is a 401 that is wrapped too', async () => {
    const res = await call('/v1/uploads/presign', {
      method: 'POST',
      json: { filename: 'a.png', contentType: 'image/png' },
    });
    await expectProblem(res, 401, 'UNAUTHENTICATED');
  });

  it('a PUT with another Content-Type than presigned is a 415 and stores nothing', async () => {
    const data = await presigned();
    await expectProblem(
      (await put(data.uploadUrl, Buffer.from('x'), 'image/jpeg')) as TestResponse,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
  });

  it('a PUT over maxSize is a 413 and stores nothing (declared length and chunked body)', async () => {
    const data = await presigned();
    const big = Buffer.alloc(IMAGE_MAX + 1, 7);
    const declared = await rawPut(data.uploadUrl, big, { 'content-type': 'image/png' });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    const chunked = await rawPut(data.uploadUrl, big, {
      'content-type': 'image/png',
      'transfer-encoding': 'chunked',
    });
    expect(chunked.status).toBe(413);
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
    expect(await svc.api.blob.store.stat(uploadKey(acmeUid, data.fileId))).toBeUndefined();
    // Exactly maxSize is fine.
    expect((await put(data.uploadUrl, big.subarray(0, IMAGE_MAX))).status).toBe(200);
  });

  it.each([
    [
      'a changed signature',
      (u: URL) => {
        const signature = u.searchParams.get('signature')!;
        u.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
      },
    ],
    ['a raised maxSize', (u: URL) => u.searchParams.set('maxSize', '999999999')],
    [
      'a later expiry',
      (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60)),
    ],
    [
      "another account's folder in the path",
      (u: URL) =>
        (u.pathname = u.pathname.replace(`/${uploadFolder(acmeUid)}/`, `/${uploadFolder(globexUid)}/`)),
    ],
    ['no signature', (u: URL) => u.searchParams.delete('signature')],
  ])('a PUT with %s is a 403 and stores nothing', async (_, tamper) => {
    const data = await presigned();
    const url = new URL(data.uploadUrl);
    tamper(url);
    await expectProblem(
      (await put(url.toString(), Buffer.from('x'))) as TestResponse,
      403,
      'SIGNATURE_INVALID',
    );
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
  });

  it('a PUT after the address expired is a 403', async () => {
    const data = await presigned();
    // The same URL as the api would sign, made with its secret 16 minutes ago.
    const signer = new BlobSigner({ secrets: [svc.config.GENJOBS_BLOB_SECRET!], now: Date.now });
    const key = uploadKey(acmeUid, data.fileId);
    const query = signer.signPut(key, {
      contentType: 'image/png',
      maxSize: IMAGE_MAX,
      expiresAt: new Date(Date.now() - MIN),
    });
    const expired = `${new URL(data.uploadUrl).origin}/files/${key}?${query}`;
    const body = await expectProblem(
      (await put(expired, Buffer.from('x'))) as TestResponse,
      403,
      'SIGNATURE_INVALID',
    );
    expect(body.detail).toMatch(/expired/);
  });

  it("another account's upload, an unknown id and a malformed id are all 404 NOT_FOUND", async () => {
    const data = await presigned();
    await expectProblem(await call(`/v1/uploads/${data.fileId}`, { key: other }), 404, 'NOT_FOUND');
    await expectProblem(
      await call('/v1/uploads/6f1c1f9e-0000-4000-8000-000000000000', { key }),
      404,
      'NOT_FOUND',
    );
    await expectProblem(await call('/v1/uploads/..%2F..%2Fetc', { key }), 404, 'NOT_FOUND');
  });

  it('a file larger than maxSize that got stored anyway (as S3 allows) is deleted, with a Warning', async () => {
    const data = await presigned();
    const key = uploadKey(acmeUid, data.fileId);
    // Straight into the store, past the PUT route's limit: what an S3 presigned PUT permits.
    await svc.api.blob.store.putStream(key, Readable.from([Buffer.alloc(IMAGE_MAX + 10)]), 'image/png');
    // The controller may already be looking (a reconcile of the new Upload); the next
    // periodic check comes 30 s later on its clock.
    clock.advance(31_000);
    await eventually(async () => (await fetch(local(data.fileUrl))).status === 404);
    const events = await eventually(async () => {
      const list = await svc.kube.core.listNamespacedEvent({
        namespace: svc.kube.namespace,
        fieldSelector: `involvedObject.name=${data.fileId}`,
      });
      return list.items.length > 0 && list.items;
    });
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'FileTooLarge' });
    expect(events[0]?.message).toContain(String(IMAGE_MAX + 10));
    expect((await svc.r.uploads.get(data.fileId))?.status).toEqual({ phase: 'pending' });
  });
});

// Last in the file: these move the controller's clock past every upload's expiry.
describe('expiry', () => {
  async function uploaded() {
    const data = await presigned();
    expect((await put(data.uploadUrl, Buffer.from('hello'))).status).toBe(200);
    expect((await fetch(local(data.fileUrl))).status).toBe(200);
    return data;
  }

  async function statusOf(id: string) {
    return (await (await call(`/v1/uploads/${id}`, { key })).json()).data.status;
  }

  it('deletes the file 60 minutes after creation and marks the upload expired; the record goes a day later', async () => {
    const data = await uploaded();
    clock.advance(Date.parse(data.expiresAt) - clock.now() - MIN);
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(data.fileId)).toBe('pending');
    expect((await fetch(local(data.fileUrl))).status).toBe(200);

    clock.advance(MIN);
    await eventually(async () => (await statusOf(data.fileId)) === 'expired');
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
    const cr = await svc.r.uploads.get(data.fileId);
    expect(Date.parse(cr?.status?.expiredAt ?? '')).toBeGreaterThanOrEqual(Date.parse(data.expiresAt));

    clock.advance(24 * 60 * MIN);
    await eventually(async () => (await svc.r.uploads.get(data.fileId)) === undefined);
    // The api answers from its watch cache, which sees the delete a moment after etcd does.
    const gone = await eventually(async () => {
      const res = await call(`/v1/uploads/${data.fileId}`, { key });
      return res.status === 404 && res;
    });
    await expectProblem(gone, 404, 'NOT_FOUND');
  });

  it('expires uploads that came due while no controller ran, once one starts again', async () => {
    await controller?.stop();
    controller = undefined;
    const data = await uploaded();
    clock.advance(Date.parse(data.expiresAt) - clock.now() + 1_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(data.fileId)).toBe('pending');
    expect((await fetch(local(data.fileUrl))).status).toBe(200);

    controller = await startTestController(svc, { clock });
    await eventually(async () => (await statusOf(data.fileId)) === 'expired');
    expect((await fetch(local(data.fileUrl))).status).toBe(404);
  });
});
