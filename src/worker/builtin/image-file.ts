import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { assertNever } from '../../errors.ts';
import type { RunContext } from '../context.ts';
import { storeFile } from '../store.ts';
import type { ImageFormat } from './input.ts';

/** File extension and media type of each image format the builtin writes. */
export const IMAGE_FORMAT_FILES: Record<ImageFormat, { ext: string; contentType: string }> = {
  png: { ext: 'png', contentType: 'image/png' },
  jpeg: { ext: 'jpg', contentType: 'image/jpeg' },
  webp: { ext: 'webp', contentType: 'image/webp' },
};

/** Sets the encoder of `image` for `format`. Metadata is not copied: sharp strips it unless told. */
export function encodeAs(image: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 6 });
    case 'jpeg':
      return image.jpeg({ quality: 90 });
    case 'webp':
      return image.webp({ quality: 90 });
    default:
      return assertNever(format);
  }
}

/** Encodes `image` into the scratch directory as `<stem>.<ext>` and hands it to the sink; answers its URL. */
export async function storeImage(
  ctx: RunContext,
  stem: string,
  image: Sharp,
  format: ImageFormat,
): Promise<string> {
  const { ext, contentType } = IMAGE_FORMAT_FILES[format];
  const name = `${stem}.${ext}`;
  const file = join(ctx.scratchDir, name);
  await encodeAs(image, format).toFile(file);
  return storeFile(ctx, name, file, contentType);
}
