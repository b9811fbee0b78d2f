import sharp from 'sharp';
import type { OutputItem } from '../../k8s/types.ts';
import type { RunContext } from '../context.ts';
import { storeImage } from './image-file.ts';
import {
  readAspectRatio,
  readImageFormat,
  readImageResolution,
  readImageUrls,
  readPrompt,
  readSeed,
} from './input.ts';
import { loadInputImages, openInputImage } from './input-images.ts';
import { paintArt } from './paint.ts';
import { Random } from './random.ts';
import { IMAGE_LONG_SIDE, parseAspectRatio, sizeFromLongSide } from './size.ts';

/**
 * The builtin text-to-image: a procedural picture of the prompt and seed at the requested
 * aspect ratio (default 1:1) and resolution (long side). Reference images (`image_urls`),
 * when given, show through the picture softly.
 */
export async function textToImage(ctx: RunContext): Promise<OutputItem[]> {
  const { input } = ctx;
  const prompt = readPrompt(input);
  const ratio = parseAspectRatio(readAspectRatio(input, '1:1'));
  const size = sizeFromLongSide(ratio, IMAGE_LONG_SIDE[readImageResolution(input)]);
  const format = readImageFormat(input);
  const references = await loadInputImages(ctx, readImageUrls(input));

  const random = new Random('text-to-image', prompt, readSeed(input, ctx.seed));
  const art = await paintArt(random, size, prompt);
  let image = sharp(art.data, { raw: art.info });
  const reference = references[0];
  if (reference !== undefined) {
    const layer = await openInputImage(reference)
      .resize(size.width, size.height, { fit: 'cover' })
      // Flattened first: ensureAlpha leaves an existing alpha channel as it is.
      .flatten({ background: '#808080' })
      .ensureAlpha(0.45)
      .png({ compressionLevel: 0 })
      .toBuffer();
    image = sharp(
      await image
        .composite([{ input: layer, blend: 'soft-light' }])
        .png({ compressionLevel: 0 })
        .toBuffer(),
    );
  }
  return [{ type: 'image', url: await storeImage(ctx, 'output-0', image, format) }];
}
