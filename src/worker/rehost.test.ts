import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_RANGES, type TargetPolicy } from '../webhooks/address.ts';
import { WorkerError } from './errors.ts';
import { guardedInputFetch } from './input-guard.ts';
import { rehostOutputs } from './rehost.ts';
import { fileOf, serve, type TestServer, tempDir, testContext } from './test-helpers.ts';

let png: Buffer;
let model: TestServer;
let elsewhere: TestServer;
let root: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#08f' } })
    .png()
    .toBuffer();
  elsewhere = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  model = await serve((req, res) => {
    if (req.url === '/out.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (req.url === '/to-private') res.writeHead(302, { location: 'http://10.1.2.3/out.png' }).end();
    else if (req.url === '/to-elsewhere') res.writeHead(302, { location: `${elsewhere.url}/x.png` }).end();
    else res.writeHead(404).end();
  });
  root = await tempDir();
});
afterAll(async () => {
  await Promise.all([model?.close(), elsewhere?.close(), root?.cleanup()]);
});

/** Re-hosts `output` as the worker does: the model's own origin as is, the rest through the input guard. */
function rehost(output: string, policy: TargetPolicy = {}) {
  const { ctx, sink } = testContext(
    root.dir,
    {},
    { fetchInput: guardedInputFetch(fetch, { trusted: [], policy }) },
  );
  return { sink, promise: rehostOutputs(ctx, output, { origin: model.url, token: 's3cret' }) };
}

/** The operators' detail of an UPSTREAM_ERROR; the owner's message never names the address tried. */
async function upstreamError(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerError);
  expect((error as WorkerError).code).toBe('UPSTREAM_ERROR');
  expect((error as WorkerError).message).toBe('an output of the model could not be downloaded');
  return (error as WorkerError).detail ?? '';
}

describe('re-hosting outputs', () => {
  it("fetches the model server's own origin as the catalog names it, even in-cluster", async () => {
    const { sink, promise } = rehost(`${model.url}/out.png`);
    const [item] = await promise;
    expect((await readFile(fileOf(sink, item!.url))).equals(png)).toBe(true);
  });

  it('refuses an output URL on a private address, and any redirect from the model server to one', async () => {
    const seen = elsewhere.requests.length;
    expect(await upstreamError(rehost(`${elsewhere.url}/x.png`).promise)).toMatch(
      /loopback address 127\.0\.0\.1 is not public/,
    );
    expect(await upstreamError(rehost(`${model.url}/to-private`).promise)).toMatch(
      /private address 10\.1\.2\.3 is not public/,
    );
    expect(await upstreamError(rehost(`${model.url}/to-elsewhere`).promise)).toMatch(/is not public/);
    expect(elsewhere.requests.length).toBe(seen);
  });

  it('reports a connection failure by its code, not by the address it tried', async () => {
    const closed = await serve(() => undefined);
    await closed.close();
    const url = closed.url.replace('127.0.0.1', 'localhost');
    const message = await upstreamError(rehost(`${url}/x.png`, { allowedRanges: LOOPBACK_RANGES }).promise);
    expect(message).toBe(`output ${url}/x.png could not be fetched (ECONNREFUSED)`);
  });

  it("follows a redirect the policy allows, without the model server's token", async () => {
    const { sink, promise } = rehost(`${model.url}/to-elsewhere`, { allowedRanges: LOOPBACK_RANGES });
    const [item] = await promise;
    expect((await readFile(fileOf(sink, item!.url))).equals(png)).toBe(true);
    expect(model.requests.at(-1)?.headers.authorization).toBe('Bearer s3cret');
    expect(elsewhere.requests.at(-1)?.headers.authorization).toBeUndefined();
  });
});
