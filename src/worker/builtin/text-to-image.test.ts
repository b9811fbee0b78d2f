import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileOf, serve, tempDir, testContext } from '../test-helpers.ts';
import { textToImage } from './text-to-image.ts';

describe('builtin text-to-image', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => root.cleanup());

  async function generate(input: Record<string, unknown>, seed?: number) {
    const { ctx, sink } = testContext(root.dir, input, { seed });
    const outputs = await textToImage(ctx);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]?.type).toBe('image');
    return { outputs, file: fileOf(sink, outputs[0]!.url), sink };
  }

  it.each([
    ['1:1', '1k', 1024, 1024],
    ['16:9', '1k', 1024, 576],
    ['9:16', '2k', 1152, 2048],
    ['21:9', '2k', 2048, 878],
    ['4:3', '1k', 1024, 768],
  ])('renders a %s %s PNG of %ix%i', async (aspect_ratio, resolution, width, height) => {
    const { file, outputs } = await generate({ prompt: 'a lighthouse at dusk', aspect_ratio, resolution });
    expect(outputs[0]?.url).toBe('http://outputs.test/job/output-0.png');
    const meta = await sharp(file).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'png',
      width,
      height,
    });
  });

  it('renders 4k at 4096 px on the long side', async () => {
    const { file } = await generate({ prompt: 'a city of glass', aspect_ratio: '16:9', resolution: '4k' });
    const meta = await sharp(file).metadata();
    expect([meta.width, meta.height]).toEqual([4096, 2304]);
  });

  it.each([
    ['jpeg', 'jpeg', '.jpg'],
    ['webp', 'webp', '.webp'],
  ])('writes output_format %s', async (output_format, format, ext) => {
    const { file, outputs } = await generate({ prompt: 'p', output_format });
    expect(outputs[0]?.url.endsWith(ext)).toBe(true);
    expect((await sharp(file).metadata()).format).toBe(format);
  });

  it('draws any prompt: markup, control characters, emoji, and a cut through an entity', async () => {
    const prompt = `${'x'.repeat(87)}&<>"\u0000\u0007🎨 ]]> </svg> ${'long '.repeat(50)}`;
    const { file } = await generate({ prompt });
    expect((await sharp(file).metadata()).width).toBe(1024);
  });

  it('lets reference images (image_urls) show through', async () => {
    const reference = await sharp({
      create: { width: 300, height: 200, channels: 4, background: '#ffffffc0' },
    })
      .png()
      .toBuffer();
    const server = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(reference),
    );
    try {
      const plain = await pixels((await generate({ prompt: 'ref', aspect_ratio: '3:2' })).file);
      const { file } = await generate({
        prompt: 'ref',
        image_urls: [`${server.url}/ref.png`],
        aspect_ratio: '3:2',
      });
      expect([(await sharp(file).metadata()).width, (await sharp(file).metadata()).height]).toEqual([
        1024, 682,
      ]);
      expect(meanDifference(plain, await pixels(file))).toBeGreaterThan(3);
      const broken = testContext(root.dir, {
        prompt: 'ref',
        image_urls: [`${server.url}/ref.png`, 'http://127.0.0.1:1/x'],
      });
      await expect(textToImage(broken.ctx)).rejects.toThrow('http://127.0.0.1:1/x');
    } finally {
      await server.close();
    }
  });

  it('gives identical bytes for the same prompt and seed', async () => {
    const a = await readFile((await generate({ prompt: 'same' }, 42)).file);
    const b = await readFile((await generate({ prompt: 'same' }, 42)).file);
    expect(a.equals(b)).toBe(true);
  });

  it('gives visibly different pictures for another prompt or another seed', async () => {
    const base = await pixels((await generate({ prompt: 'a red fox' }, 1)).file);
    const otherPrompt = await pixels((await generate({ prompt: 'a blue whale' }, 1)).file);
    const otherSeed = await pixels((await generate({ prompt: 'a red fox' }, 2)).file);
    expect(meanDifference(base, otherPrompt)).toBeGreaterThan(10);
    expect(meanDifference(base, otherSeed)).toBeGreaterThan(10);
  });
});

async function pixels(file: string): Promise<Buffer> {
  return sharp(file).resize(64, 64).removeAlpha().raw().toBuffer();
}

/** Mean absolute difference per channel, 0..255. */
function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
