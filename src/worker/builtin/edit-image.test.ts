import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkerError } from '../errors.ts';
import { fileOf, serve, type TestServer, tempDir, testContext } from '../test-helpers.ts';
import { editImage } from './edit-image.ts';

describe('builtin edit-image', () => {
  let server: TestServer;
  let source: Buffer;
  let root: Awaited<ReturnType<typeof tempDir>>;
  let flaky = 0;

  beforeAll(async () => {
    // A 600x400 picture: left half red, right half blue.
    source = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#d03020' } })
      .composite([
        {
          input: { create: { width: 300, height: 400, channels: 3, background: '#2040d0' } },
          left: 300,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    server = await serve((req, res) => {
      if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(source);
      else if (req.url === '/not-an-image')
        res.writeHead(200, { 'content-type': 'image/png' }).end('<html>hello</html>');
      else if (req.url === '/flaky.png' && flaky > 0) {
        flaky--;
        res.writeHead(503).end('busy');
      } else if (req.url === '/flaky.png') res.writeHead(200, { 'content-type': 'image/png' }).end(source);
      else if (req.url === '/down.png') res.writeHead(503).end('down');
      else if (req.url === '/drawing.svg')
        res
          .writeHead(200, { 'content-type': 'image/svg+xml' })
          .end(
            '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>',
          );
      else if (req.url === '/truncated.png')
        res.writeHead(200, { 'content-type': 'image/png' }).end(source.subarray(0, 300));
      else res.writeHead(404).end('not found');
    });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => root.cleanup());

  async function edit(input: Record<string, unknown>, overrides: Parameters<typeof testContext>[2] = {}) {
    const { ctx, sink } = testContext(root.dir, input, overrides);
    const outputs = await editImage(ctx);
    expect(outputs).toMatchObject([{ type: 'image' }]);
    return fileOf(sink, outputs[0]!.url);
  }

  it.each([
    ['16:9', '1k', 1024, 576],
    ['1:1', '2k', 2048, 2048],
    ['9:16', '1k', 576, 1024],
  ])('crops to %s at %s: %ix%i', async (aspect_ratio, resolution, width, height) => {
    const file = await edit({
      prompt: 'make it moody',
      image_urls: [`${server.url}/photo.png`],
      aspect_ratio,
      resolution,
    });
    const meta = await sharp(file).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', width, height]);
  });

  it('keeps the input proportions without an aspect_ratio, from a single `image` field', async () => {
    const file = await edit({ prompt: 'warmer', image: `${server.url}/photo.png` });
    const meta = await sharp(file).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 682]);
  });

  it('is an edit of the input: same layout, different colours, same bytes twice', async () => {
    const input = { prompt: 'a sepia memory', image_urls: [`${server.url}/photo.png`], aspect_ratio: '3:2' };
    const first = await edit(input);
    const second = await edit(input);
    expect((await readFile(second)).equals(await readFile(first))).toBe(true);

    const original = await sharp(source).resize(60, 40).removeAlpha().raw().toBuffer();
    const edited = await sharp(first).resize(60, 40).removeAlpha().raw().toBuffer();
    expect(meanDifference(original, edited)).toBeGreaterThan(10);
    // The two halves of the input still differ in the output: it was edited, not replaced.
    const [left, right] = [pixel(edited, 60, 10, 20), pixel(edited, 60, 50, 20)];
    expect(Math.abs(left[0] - right[0]) + Math.abs(left[2] - right[2])).toBeGreaterThan(60);
  });

  it('changes with the prompt', async () => {
    const a = await edit({ prompt: 'one', image_urls: [`${server.url}/photo.png`] });
    const b = await edit({ prompt: 'two', image_urls: [`${server.url}/photo.png`] });
    const [pa, pb] = await Promise.all([a, b].map((f) => sharp(f).resize(32, 32).raw().toBuffer()));
    expect(meanDifference(pa!, pb!)).toBeGreaterThan(5);
  });

  it('insets the other input images', async () => {
    const file = await edit({
      prompt: 'x',
      image_urls: [`${server.url}/photo.png`, `${server.url}/photo.png`],
    });
    expect((await sharp(file).metadata()).width).toBe(1024);
  });

  it.each([
    ['a 404', '/missing.png', 'answered HTTP 404'],
    [
      'a 404 of an upload',
      '/files/uploads/acme/0b6f7c4e-0000-4000-8000-000000000000',
      'answered HTTP 404: the uploaded file is not there (never PUT to its uploadUrl, larger than its type allows, or expired)',
    ],
    ['a body that is not an image', '/not-an-image', 'is not a PNG, JPEG, WebP or GIF image'],
    // A valid SVG, which sharp would render: no vector decoder sees a client's document.
    ['an SVG', '/drawing.svg', 'is not a PNG, JPEG, WebP or GIF image'],
    ['a truncated image', '/truncated.png', 'could not be decoded as an image'],
  ])('fails on %s with GENERATION_FAILED naming the URL', async (_name, path, reason) => {
    const { ctx } = testContext(root.dir, { prompt: 'x', image_urls: [`${server.url}${path}`] });
    const error = await editImage(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerError);
    expect(error).toMatchObject({ code: 'GENERATION_FAILED' });
    expect((error as Error).message).toContain(`${server.url}${path}`);
    expect((error as Error).message).toContain(reason);
  });

  it("waits out one of the service's own files that gets a 5xx or no answer (the store on a blip), not a refusal or another host", async () => {
    const waits: number[] = [];
    let t = 0;
    // The test server stands for the api's /files here.
    const own = {
      now: () => t,
      sleep: async (ms: number) => {
        waits.push(ms);
        t += ms;
      },
      ownFile: (url: string) => url.startsWith(`${server.url}/`),
    };
    flaky = 2;
    await edit({ prompt: 'x', image_urls: [`${server.url}/flaky.png`] }, own);
    expect(waits).toEqual([1_000, 2_000]);

    waits.length = 0;
    const down = testContext(root.dir, { image_urls: [`${server.url}/down.png`] }, own).ctx;
    await expect(editImage(down)).rejects.toThrow(/down\.png answered HTTP 503 \(8 tries\)/);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60_000);
    waits.length = 0;
    const missing = testContext(root.dir, { image_urls: [`${server.url}/gone.png`] }, own).ctx;
    await expect(editImage(missing)).rejects.toThrow(/gone\.png answered HTTP 404$/);
    // Another host's 503: the job's slot is not held for it.
    const elsewhere = testContext(
      root.dir,
      { image_urls: [`${server.url}/down.png`] },
      { ...own, ownFile: () => false },
    ).ctx;
    await expect(editImage(elsewhere)).rejects.toThrow(/down\.png answered HTTP 503$/);
    expect(waits).toEqual([]);
  });

  it('fails on an unreachable host and on a missing image list', async () => {
    const unreachable = testContext(root.dir, { image_urls: ['http://127.0.0.1:1/a.png'] }).ctx;
    await expect(editImage(unreachable)).rejects.toThrow(/127\.0\.0\.1:1\/a\.png could not be fetched/);
    const none = testContext(root.dir, { prompt: 'x' }).ctx;
    await expect(editImage(none)).rejects.toThrow('must name at least one image');
  });
});

function pixel(raw: Buffer, width: number, x: number, y: number): [number, number, number] {
  const i = (y * width + x) * 3;
  return [raw[i]!, raw[i + 1]!, raw[i + 2]!];
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
