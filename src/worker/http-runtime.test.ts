import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunContext } from './context.ts';
import type { WorkerError } from './errors.ts';
import { runHttp } from './http-runtime.ts';
import { fileOf, serve, type TestServer, tempDir, testContext } from './test-helpers.ts';

type Reply = { status?: number; body: unknown };

/**
 * A prediction server speaking the Cog HTTP protocol on 127.0.0.1. `predict` answers the
 * POST; `poll` answers GET /predictions/p1 (called with how many polls came before).
 */
async function cogServer(files: Record<string, { type: string; body: Buffer }>) {
  let predict: (base: string, input: unknown) => Reply = () => ({
    body: { status: 'succeeded', output: null },
  });
  let poll: (base: string, count: number) => Reply = () => ({ body: { status: 'processing' } });
  let polls = 0;
  const server = await serve((req, res, body, base) => {
    const reply = (r: Reply) =>
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
    if (req.method === 'POST' && req.url === '/predictions')
      return reply(predict(base, JSON.parse(body).input));
    if (req.method === 'GET' && req.url === '/predictions/p1') return reply(poll(base, polls++));
    if (req.method === 'POST' && req.url === '/predictions/p1/cancel')
      return reply({ body: { status: 'canceled' } });
    const file = files[req.url ?? ''];
    if (file) return res.writeHead(200, { 'content-type': file.type }).end(file.body);
    res.writeHead(404).end('no such file');
  });
  return {
    server,
    onPredict: (fn: typeof predict) => {
      predict = fn;
    },
    onPoll: (fn: typeof poll) => {
      poll = fn;
      polls = 0;
    },
  };
}

describe('http runtime (Cog protocol)', () => {
  let png: Buffer;
  let mp4: Buffer;
  let cog: Awaited<ReturnType<typeof cogServer>>;
  let elsewhere: TestServer;
  let root: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const dir = await tempDir();
    const file = join(dir.dir, 'clip.mp4');
    await promisify(execFile)('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=24:d=1', '-pix_fmt', 'yuv420p', file],
    ]);
    mp4 = await readFile(file);
    await dir.cleanup();
    cog = await cogServer({
      '/files/out.png': { type: 'image/png', body: png },
      '/files/clip.mp4': { type: 'video/mp4', body: mp4 },
      '/files/blob': { type: 'application/octet-stream', body: Buffer.from('??') },
    });
    elsewhere = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  });
  afterAll(async () => {
    await cog.server.close();
    await elsewhere.close();
  });
  beforeEach(async () => {
    root = await tempDir();
    cog.server.requests.length = 0;
    elsewhere.requests.length = 0;
  });
  afterEach(() => root.cleanup());

  function run(input: Record<string, unknown>, overrides: Partial<RunContext> = {}, token?: string) {
    const { ctx, sink } = testContext(root.dir, input, overrides);
    return { promise: runHttp({ url: cog.server.url, token, pollIntervalMs: 1000 }, ctx), sink };
  }

  it('posts the input with the token and re-hosts a URL output in our store', async () => {
    cog.onPredict((base, input) => ({
      body: { status: 'succeeded', output: `${base}/files/out.png`, input },
    }));
    const { promise, sink } = run({ prompt: 'a kite' }, {}, 's3cret');
    const outputs = await promise;
    expect(outputs).toEqual([{ type: 'image', url: 'http://outputs.test/job/output-0.png' }]);
    expect((await readFile(fileOf(sink, outputs[0]!.url))).equals(png)).toBe(true);
    const [post, download] = cog.server.requests;
    expect(post).toMatchObject({ method: 'POST', url: '/predictions' });
    expect(JSON.parse(post!.body)).toEqual({ input: { prompt: 'a kite' } });
    expect(post!.headers).toMatchObject({
      authorization: 'Bearer s3cret',
      prefer: 'wait',
      'content-type': 'application/json',
    });
    // Output files on the server's own origin may need the token too.
    expect(download?.headers.authorization).toBe('Bearer s3cret');
  });

  it('re-hosts arrays of URLs, data URIs and text, and never sends the token to another origin', async () => {
    const dataUri = `data:image/png;base64,${png.toString('base64')}`;
    cog.onPredict(() => ({
      body: { status: 'succeeded', output: [`${elsewhere.url}/x.png`, dataUri, 'a caption'] },
    }));
    const { promise, sink } = run({}, {}, 's3cret');
    const outputs = await promise;
    expect(outputs.map((o) => [o.type, o.url])).toEqual([
      ['image', 'http://outputs.test/job/output-0.png'],
      ['image', 'http://outputs.test/job/output-1.png'],
      ['text', 'http://outputs.test/job/output-2.txt'],
    ]);
    expect((await readFile(fileOf(sink, outputs[1]!.url))).equals(png)).toBe(true);
    expect(await readFile(fileOf(sink, outputs[2]!.url), 'utf8')).toBe('a caption');
    expect(elsewhere.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('gives a video output a poster image and a thumbnail', async () => {
    cog.onPredict((base) => ({ body: { status: 'succeeded', output: { video: `${base}/files/clip.mp4` } } }));
    const { promise, sink } = run({});
    const [item] = await promise;
    expect(item).toEqual({
      type: 'video',
      url: 'http://outputs.test/job/output-0.mp4',
      posterImage: 'http://outputs.test/job/output-0-poster.jpg',
      thumbnail: 'http://outputs.test/job/output-0-thumbnail.webp',
    });
    expect(await sharp(fileOf(sink, item!.posterImage!)).metadata()).toMatchObject({
      width: 320,
      height: 240,
    });
  });

  it('polls urls.get while the prediction runs', async () => {
    cog.onPredict((base) => ({
      status: 201,
      body: { status: 'starting', urls: { get: `${base}/predictions/p1` } },
    }));
    cog.onPoll((base, count) => ({
      body: count < 2 ? { status: 'processing' } : { status: 'succeeded', output: `${base}/files/out.png` },
    }));
    const slept: number[] = [];
    const { promise } = run({}, { sleep: async (ms) => void slept.push(ms) }, 'tok');
    expect(await promise).toMatchObject([{ type: 'image' }]);
    expect(slept).toEqual([1000, 1000, 1000]);
    const polls = cog.server.requests.filter((r) => r.method === 'GET' && r.url === '/predictions/p1');
    expect(polls).toHaveLength(3);
    expect(polls[0]?.headers.authorization).toBe('Bearer tok');
  });

  it('stops polling at the deadline with TIMEOUT and cancels upstream', async () => {
    cog.onPredict((base) => ({
      body: {
        status: 'processing',
        urls: { get: `${base}/predictions/p1`, cancel: `${base}/predictions/p1/cancel` },
      },
    }));
    cog.onPoll(() => ({ body: { status: 'processing' } }));
    let clock = 0;
    const sleep = async (ms: number) => {
      clock += ms;
    };
    const { promise } = run({}, { now: () => clock, deadline: 3500, sleep });
    await expect(promise).rejects.toMatchObject({ code: 'TIMEOUT' });
    // Polls at 1000, 2000 and 3000 ms; the next would come after the deadline.
    expect(cog.server.requests.filter((r) => r.url === '/predictions/p1')).toHaveLength(3);
    expect(cog.server.requests.at(-1)).toMatchObject({ method: 'POST', url: '/predictions/p1/cancel' });
  });

  it.each<[string, string, Reply, string]>([
    [
      'a failed prediction',
      'GENERATION_FAILED',
      { body: { status: 'failed', error: 'CUDA out of memory' } },
      'CUDA out of memory',
    ],
    ['a canceled prediction', 'UPSTREAM_ERROR', { body: { status: 'canceled' } }, 'canceled'],
    ['HTTP 500', 'UPSTREAM_ERROR', { status: 500, body: { detail: 'boom' } }, 'HTTP 500: boom'],
    ['HTTP 503 with a text body', 'UPSTREAM_ERROR', { status: 503, body: 'overloaded' }, 'HTTP 503'],
    [
      'HTTP 422 (input refused)',
      'GENERATION_FAILED',
      { status: 422, body: { detail: [{ msg: 'prompt too long' }] } },
      'prompt too long',
    ],
    ['HTTP 401', 'UPSTREAM_ERROR', { status: 401, body: {} }, 'credentials'],
    [
      'HTTP 409 (busy)',
      'UPSTREAM_ERROR',
      { status: 409, body: { detail: 'Already running a prediction' } },
      'HTTP 409',
    ],
    [
      'an answer that is no prediction',
      'UPSTREAM_ERROR',
      { body: { hello: 'world' } },
      'other than a prediction',
    ],
    ['an unknown status', 'UPSTREAM_ERROR', { body: { status: 'dreaming' } }, 'dreaming'],
    [
      'success without output',
      'GENERATION_FAILED',
      { body: { status: 'succeeded', output: null } },
      'no output',
    ],
    ['running without a poll URL', 'UPSTREAM_ERROR', { body: { status: 'processing' } }, 'no URL to poll'],
  ])('maps %s to %s', async (_name, code, reply, message) => {
    cog.onPredict(() => reply);
    const { promise } = run({});
    const error = await promise.catch((e: unknown) => e);
    expect(error).toMatchObject({ code });
    expect(told(error)).toContain(message);
    expect((error as Error).message).not.toContain(cog.server.url);
  });

  it.each([
    ['an output URL that answers 404', 'UPSTREAM_ERROR', '/files/missing.png', 'answered HTTP 404'],
    ['an output of unknown media type', 'INVALID_OUTPUT', '/files/blob', 'unsupported media type'],
  ])('maps %s to %s', async (_name, code, path, message) => {
    cog.onPredict((base) => ({ body: { status: 'succeeded', output: `${base}${path}` } }));
    const error = await run({}).promise.catch((e: unknown) => e);
    expect(error).toMatchObject({ code });
    expect(told(error)).toContain(message);
    expect((error as Error).message).not.toContain(cog.server.url);
  });

  it("maps a server that cannot be reached to UPSTREAM_ERROR; its address is for operators, not the job's owner", async () => {
    const { ctx } = testContext(root.dir, {});
    const error = await runHttp({ url: 'http://127.0.0.1:1' }, ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'the model server could not be reached' });
    expect((error as WorkerError).detail).toMatch(
      /prediction server http:\/\/127\.0\.0\.1:1 could not be reached/,
    );
  });
});

/** What a failure tells, to the job's owner and in its detail to operators. */
function told(error: unknown): string {
  return `${(error as Error).message} | ${(error as WorkerError).detail ?? ''}`;
}
