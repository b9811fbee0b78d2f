import sharp from 'sharp';
import { composeArt } from './art.ts';
import type { Random } from './random.ts';
import type { Size } from './size.ts';

/** Raw pixels of an image, as sharp hands them over between stages. */
export interface RawImage {
  data: Buffer;
  info: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}

/**
 * Paints the procedural picture of {@link composeArt} at `size`: blurred background scaled
 * up, crisp foreground on top, film grain over all. Answers raw RGB pixels, so callers pick
 * the encoding (or composite it further).
 */
export async function paintArt(random: Random, size: Size, caption: string): Promise<RawImage> {
  const art = composeArt(random, size, caption);
  const background = await sharp(Buffer.from(art.background))
    .blur(Math.max(0.3, art.blur * art.scale))
    .resize(size.width, size.height, { fit: 'fill' })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const grain = await grainLayer(random, size, art.grain);
  const { data, info } = await sharp(background)
    .composite([
      { input: Buffer.from(art.foreground) },
      { input: grain.data, raw: grain.info, blend: 'overlay' },
    ])
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, info: { width: info.width, height: info.height, channels: 3 } };
}

const GRAIN_LONG_SIDE = 2048;

/** Grey noise from `random` (so it is reproducible), at most 2048 px long and scaled up, with `opacity` as alpha. */
export async function grainLayer(random: Random, size: Size, opacity: number): Promise<RawImage> {
  const scale = Math.min(1, GRAIN_LONG_SIDE / Math.max(size.width, size.height));
  const width = Math.max(1, Math.round(size.width * scale));
  const height = Math.max(1, Math.round(size.height * scale));
  const noise = Buffer.allocUnsafe(width * height);
  for (let i = 0; i < noise.length; i++) noise[i] = Math.floor(random.next() * 256);
  const { data, info } = await sharp(noise, { raw: { width, height, channels: 1 } })
    .resize(size.width, size.height, { fit: 'fill' })
    .ensureAlpha(opacity)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, info: { width: info.width, height: info.height, channels: info.channels as 2 } };
}
