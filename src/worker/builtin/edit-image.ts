import sharp, { type OverlayOptions } from 'sharp';
import type { OutputItem } from '../../k8s/types.ts';
import type { RunContext } from '../context.ts';
import { WorkerError } from '../errors.ts';
import { captionSvg } from './art.ts';
import { storeImage } from './image-file.ts';
import {
  readAspectRatio,
  readImageFormat,
  readImageResolution,
  readImageUrls,
  readPrompt,
  readSeed,
} from './input.ts';
import { type InputImage, loadInputImages, openInputImage } from './input-images.ts';
import { palette, Random } from './random.ts';
import { type AspectRatio, IMAGE_LONG_SIDE, parseAspectRatio, type Size, sizeFromLongSide } from './size.ts';

/** Aspect ratio values that mean "the proportions of the first input image". */
const MATCH_INPUT = new Set(['auto', 'match_input_image', 'match_input']);

/**
 * The builtin edit-image: the first input image, cropped to the requested aspect ratio
 * (default: its own) and resolution, its colours shifted and vignetted by the prompt and
 * seed, the other input images inset along the bottom and the prompt as a caption.
 */
export async function editImage(ctx: RunContext): Promise<OutputItem[]> {
  const { input } = ctx;
  const prompt = readPrompt(input);
  const urls = readImageUrls(input);
  if (urls.length === 0) {
    throw new WorkerError(
      'GENERATION_FAILED',
      'input.image_urls (or input.image) must name at least one image',
    );
  }
  const requested = readAspectRatio(input, 'auto');
  const resolution = readImageResolution(input);
  const format = readImageFormat(input);
  const images = await loadInputImages(ctx, urls);
  const first = images[0]!;
  const ratio: AspectRatio = MATCH_INPUT.has(requested)
    ? { w: first.width, h: first.height }
    : parseAspectRatio(requested);
  const size = sizeFromLongSide(ratio, IMAGE_LONG_SIDE[resolution]);

  const random = new Random('edit-image', prompt, readSeed(input, ctx.seed));
  const [rim = '#000000'] = palette(random, 1);
  const base = await openInputImage(first)
    .resize(size.width, size.height, { fit: 'cover', position: 'centre' })
    .modulate({
      hue: random.int(40, 320),
      saturation: random.range(0.7, 1.6),
      brightness: random.range(0.9, 1.1),
    })
    .blur(random.next() < 0.5 ? Math.max(0.3, (size.width + size.height) / 2000) : false)
    .removeAlpha()
    .png({ compressionLevel: 0 })
    .toBuffer();
  const layers: OverlayOptions[] = [
    { input: Buffer.from(vignetteSvg(size, rim, random.range(0.45, 0.8))) },
    ...(await insets(images.slice(1), size)),
  ];
  const caption = captionSvg(prompt, size);
  if (caption !== '') layers.push({ input: Buffer.from(svg(size, caption)) });
  const image = sharp(base).composite(layers);
  return [{ type: 'image', url: await storeImage(ctx, 'output-0', image, format) }];
}

/** The other input images as framed tiles in a row above the caption, right to left. */
async function insets(images: InputImage[], size: Size): Promise<OverlayOptions[]> {
  const tile = Math.round(Math.min(size.width, size.height) / 5);
  const margin = Math.round(tile / 8);
  const fitting = images.slice(0, Math.max(0, Math.floor((size.width - margin) / (tile + margin))));
  return Promise.all(
    fitting.map(async (image, i) => ({
      input: await openInputImage(image)
        .resize(tile, tile, { fit: 'cover' })
        .extend({ top: 4, bottom: 4, left: 4, right: 4, background: '#ffffff' })
        .png()
        .toBuffer(),
      left: size.width - (i + 1) * (tile + margin) - 8,
      top: Math.max(0, size.height - tile - 8 - Math.round(Math.min(size.width, size.height) * 0.1)),
    })),
  );
}

function vignetteSvg(size: Size, color: string, strength: number): string {
  return svg(
    size,
    `<defs><radialGradient id="v" r="0.75"><stop offset="0.45" stop-color="${color}" stop-opacity="0"/>` +
      `<stop offset="1" stop-color="${color}" stop-opacity="${strength.toFixed(2)}"/></radialGradient></defs>` +
      `<rect width="${size.width}" height="${size.height}" fill="url(#v)"/>`,
  );
}

function svg({ width, height }: Size, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
}
