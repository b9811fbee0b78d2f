import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, PutBucketPolicyCommand, type S3Client } from '@aws-sdk/client-s3';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemHandler } from '../api/problem.ts';
import { createBlobRouter } from './routes.ts';
import { S3BlobStore } from './s3.ts';
import { createS3Client } from './s3-client.ts';
import { BlobSigner } from './signing.ts';
import { uploadWithGrant } from './upload-client.ts';

const SECRET = 'test-secret-key';
const credentials = { accessKeyId: 'AKIDGENJOBSTEST', secretAccessKey: SECRET };

/**
 * An independent check of SigV4 query-string signatures, written from AWS's description
 * ("Authenticating Requests: Using Query Parameters"): the local S3 server used below
 * (moto) accepts presigned URLs without verifying them, so signatures are checked here.
 */
function presignedSignatureValid(
  url: URL,
  method: string,
  headers: Record<string, string>,
  secret: string,
): boolean {
  const q = url.searchParams;
  const encode = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join('&');
  const signed = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
  const all: Record<string, string> = { host: url.host, ...headers };
  const canonicalHeaders = signed.map((h) => `${h}:${(all[h] ?? '').trim()}\n`).join('');
  const payload = q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonical = [method, url.pathname, query, canonicalHeaders, signed.join(';'), payload].join('\n');
  const [, date = '', region = '', service = ''] = (q.get('X-Amz-Credential') ?? '').split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    q.get('X-Amz-Date'),
    scope,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  const key = [date, region, service, 'aws4_request'].reduce<Buffer>(
    (k, part) => createHmac('sha256', k).update(part).digest(),
    Buffer.from(`AWS4${secret}`),
  );
  return createHmac('sha256', key).update(toSign).digest('hex') === q.get('X-Amz-Signature');
}

describe('SigV4 presigned URL check', () => {
  it('accepts the example from AWS documentation and rejects it altered', () => {
    // https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
    const example = new URL(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(presignedSignatureValid(example, 'GET', {}, secret)).toBe(true);
    expect(presignedSignatureValid(example, 'PUT', {}, secret)).toBe(false);
  });

  it('finds the content type signed into our presigned PUT', async () => {
    const client = createS3Client({ region: 'eu-west-1', credentials });
    const now = Date.parse('2030-01-01T00:00:00Z');
    const store = new S3BlobStore({
      client,
      bucket: 'genjobs-test',
      publicBaseUrl: 'https://cdn.example',
      signer,
      grantMaxSize: 1,
      now: () => now,
    });
    const url = new URL(
      await store.presignPut('uploads/acme/f1', {
        contentType: 'image/png',
        maxSize: 10,
        expiresAt: new Date(now + 15 * 60_000),
      }),
    );
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20300101T000000Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect([...url.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    expect(presignedSignatureValid(url, 'PUT', { 'content-type': 'image/png' }, SECRET)).toBe(true);
    expect(presignedSignatureValid(url, 'PUT', { 'content-type': 'image/jpeg' }, SECRET)).toBe(false);
    expect(presignedSignatureValid(url, 'PUT', { 'content-type': 'image/png' }, 'another secret')).toBe(
      false,
    );
  });
});

const signer = new BlobSigner({ secrets: ['g'.repeat(32)], now: Date.now });
const hasMoto = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;

// moto (pip install 'moto[server]') is a real S3-compatible HTTP server on loopback.
describe.skipIf(!hasMoto)('S3 store against a local S3 server (moto)', () => {
  let moto: ChildProcess;
  let client: S3Client;
  let store: S3BlobStore;
  let endpoint: string;
  let dir: string;
  const bucket = 'genjobs-test';
  /** The store on a client and a bucket, its public URL on moto. */
  const storeOn = (c: S3Client, b: string) =>
    new S3BlobStore({
      client: c,
      bucket: b,
      publicBaseUrl: `${endpoint}/${b}`,
      signer,
      grantMaxSize: 1000,
      now: Date.now,
    });

  beforeAll(async () => {
    moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    endpoint = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const scan = (chunk: Buffer) => {
        seen += chunk;
        const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      };
      moto.stdout?.on('data', scan);
      moto.stderr?.on('data', scan);
      moto.on('exit', () => reject(new Error(`moto_server exited: ${seen}`)));
    });
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    client = createS3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials,
      logger: quiet,
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    const policy = {
      Statement: [
        { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/*` },
      ],
    };
    await client.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(policy) }));
    store = storeOn(client, bucket);
    dir = await mkdtemp(join(tmpdir(), 'genjobs-s3-test-'));
  }, 30_000);

  afterAll(async () => {
    moto?.kill();
    client?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('presign, PUT and GET from the public URL return the same bytes and type', async () => {
    const body = Buffer.from('not really a png');
    const url = await store.presignPut('uploads/acme/f1', {
      contentType: 'image/png',
      maxSize: 100,
      expiresAt: new Date(Date.now() + 900_000),
    });
    const put = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    const got = await fetch(store.publicUrl('uploads/acme/f1'));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer())).toEqual(body);
    expect(await store.stat('uploads/acme/f1')).toMatchObject({
      size: body.length,
      contentType: 'image/png',
    });
  });

  it('stores files and streams of unknown length, and stat finds nothing after delete', async () => {
    const file = join(dir, 'a.txt');
    await writeFile(file, 'hello');
    expect(await store.putFile('jobs/j1/a.txt', file, 'text/plain')).toMatchObject({
      size: 5,
      contentType: 'text/plain',
    });
    const info = await store.putStream(
      'jobs/j1/b.bin',
      Readable.from([Buffer.from('ab'), Buffer.from('cd')]),
      'application/octet-stream',
    );
    expect(info).toMatchObject({ size: 4, etag: expect.stringMatching(/^".+"$/) });
    await store.delete('jobs/j1/a.txt');
    await store.delete('jobs/j1/a.txt');
    expect(await store.stat('jobs/j1/a.txt')).toBeUndefined();
  });

  it('refuses a stream past maxSize with PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const body = Readable.from([Buffer.alloc(60), Buffer.alloc(60)]);
    await expect(
      store.putStream('jobs/j1/big', body, 'image/png', { maxSize: 100, size: 120 }),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    await expect(
      store.putStream('jobs/j1/big', Readable.from([Buffer.alloc(120)]), 'image/png', { maxSize: 100 }),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(await store.stat('jobs/j1/big')).toBeUndefined();
  });

  it('deletes every object under a prefix and nothing beside it', async () => {
    for (const key of ['jobs/j2/a', 'jobs/j2/b', 'jobs/j2/sub/c', 'jobs/j22/a']) {
      await store.putStream(key, Readable.from([Buffer.from(key)]), 'text/plain', { size: key.length });
    }
    await store.deletePrefix('jobs/j2/');
    expect(await store.stat('jobs/j2/a')).toBeUndefined();
    expect(await store.stat('jobs/j2/sub/c')).toBeUndefined();
    expect(await store.stat('jobs/j22/a')).toBeDefined();
  });

  it('lets a worker write its outputs under its grant through the api router', async () => {
    const app = express().use('/files', createBlobRouter({ store, signer }));
    const server: http.Server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/files`;
      const file = join(dir, 'out.png');
      await writeFile(file, 'output bytes');
      const grant = store.grantForPrefix('jobs/j3/', new Date(Date.now() + 60_000));
      await uploadWithGrant(base, grant, 'jobs/j3/output-0.png', file, 'image/png');
      expect(await store.stat('jobs/j3/output-0.png')).toMatchObject({ size: 12, contentType: 'image/png' });
      await expect(uploadWithGrant(base, grant, 'jobs/j4/output-0.png', file, 'image/png')).rejects.toThrow(
        /HTTP 403/,
      );
    } finally {
      server.close();
    }
  });

  it('serves objects (whole, a range, HEAD) through the api router, and deletes an oversize upload instead', async () => {
    const limit = (key: string, info: { contentType: string }) =>
      key.startsWith('uploads/') && info.contentType === 'image/png' ? 10 : undefined;
    const app = express().use('/files', createBlobRouter({ store, signer, readLimit: limit }));
    const server: http.Server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/files`;
      await store.putStream('uploads/acme/ok', Readable.from([Buffer.from('0123456789')]), 'image/png', {
        size: 10,
      });
      const whole = await fetch(`${base}/uploads/acme/ok`);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('image/png');
      expect(await whole.text()).toBe('0123456789');
      const part = await fetch(`${base}/uploads/acme/ok`, { headers: { range: 'bytes=2-4' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
      expect(await part.text()).toBe('234');
      const head = await fetch(`${base}/uploads/acme/ok`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe('10');
      expect((await fetch(`${base}/uploads/acme/missing`)).status).toBe(404);
      await store.putStream('jobs/j9/out.png', Readable.from([Buffer.from('x')]), 'image/png', { size: 1 });
      expect(await (await fetch(`${base}/jobs/j9/out.png`)).text()).toBe('x');
      // The bucket may hold other things: only uploads and job outputs are read through here.
      await store.putStream('backups/db.sql', Readable.from([Buffer.from('secret')]), 'text/plain', {
        size: 6,
      });
      expect((await fetch(`${base}/backups/db.sql`)).status).toBe(404);
      // Stored past its limit (an S3 presigned PUT cannot stop it): never served, and gone.
      await store.putStream('uploads/acme/big', Readable.from([Buffer.alloc(11)]), 'image/png', { size: 11 });
      expect((await fetch(`${base}/uploads/acme/big`)).status).toBe(404);
      expect(await store.stat('uploads/acme/big')).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it('a bucket that is not there, or a store that takes the connection and says nothing, is a prompt retryable 503 to the worker and to readers', async () => {
    // The stores as the api serves them: its router and its problem+json answers.
    const serve = async (s: S3BlobStore) => {
      const app = express()
        .use('/files', createBlobRouter({ store: s, signer }))
        .use(problemHandler());
      const server: http.Server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/files` };
    };
    const file = join(dir, 'out-503.png');
    await writeFile(file, 'output bytes');

    // A bucket deleted (or misnamed): the worker's PUT waited for an answer that never came.
    const missing = storeOn(client, 'genjobs-not-there');
    const one = await serve(missing);
    try {
      const grant = missing.grantForPrefix('jobs/j5/', new Date(Date.now() + 60_000));
      const put = uploadWithGrant(one.base, grant, 'jobs/j5/output-0.png', file, 'image/png');
      await expect(put).rejects.toMatchObject({
        retryable: true,
        message: expect.stringMatching(/HTTP 503: .*the file store is unavailable right now; please retry/),
      });
      // The answer names neither the bucket nor the store's address (anyone may read a file URL).
      await expect(put).rejects.not.toThrow(/genjobs-not-there|127\.0\.0\.1/);
      // Told at start, before any upload: the api and the controller log it.
      await expect(missing.checkBucket()).rejects.toThrow('the bucket genjobs-not-there does not exist');
      await store.checkBucket();
      const read = await fetch(`${one.base}/uploads/acme/x`);
      expect(read.status).toBe(503);
      expect(await read.json()).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    } finally {
      one.server.close();
    }

    // A store that hangs: connections accepted, nothing answered.
    const held: Socket[] = [];
    const tarpit = createServer((socket) => void held.push(socket)).listen(0, '127.0.0.1');
    await once(tarpit, 'listening');
    const hung = createS3Client({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}`,
      forcePathStyle: true,
      credentials,
      idleTimeoutMs: 500,
    });
    const silent = storeOn(hung, bucket);
    const two = await serve(silent);
    try {
      const started = Date.now();
      const read = await fetch(`${two.base}/uploads/acme/ok`);
      expect(read.status).toBe(503);
      expect(await read.json()).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      const grant = silent.grantForPrefix('jobs/j6/', new Date(Date.now() + 60_000));
      await expect(
        uploadWithGrant(two.base, grant, 'jobs/j6/output-0.png', file, 'image/png'),
      ).rejects.toMatchObject({
        retryable: true,
        message: expect.stringMatching(/HTTP 503/),
      });
      // Each after the idle time (with the SDK's own retries of a timed-out request), not the job's timeout.
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      two.server.close();
      for (const socket of held) socket.destroy();
      tarpit.close();
      hung.destroy();
    }
  }, 30_000);
});
