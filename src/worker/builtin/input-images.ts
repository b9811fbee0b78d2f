import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import type { RunContext } from '../context.ts';
import { DownloadError, displayUrl, downloadToFile } from '../download.ts';
import { WorkerError } from '../errors.ts';

/** An input image, fetched and decoded, upright (EXIF orientation applied). */
export interface InputImage {
  url: string;
  file: string;
  width: number;
  height: number;
}

/** More than an upload may hold (10 MB) with room for other hosts' images. */
export const INPUT_IMAGE_MAX_BYTES = 25 * 1024 * 1024;
const INPUT_IMAGE_TIMEOUT_MS = 30_000;
const INPUT_IMAGE_MAX_COUNT = 8;
// A decompression bomb must fail as a bad input, not take the worker's memory.
const INPUT_IMAGE_MAX_PIXELS = 100_000_000;

/**
 * Fetches and decodes every input image, in parallel. A URL that cannot be fetched or
 * decoded fails the job with `GENERATION_FAILED` and a message naming the URL.
 */
export async function loadInputImages(ctx: RunContext, urls: string[]): Promise<InputImage[]> {
  if (urls.length > INPUT_IMAGE_MAX_COUNT) {
    throw new WorkerError('GENERATION_FAILED', `at most ${INPUT_IMAGE_MAX_COUNT} input images are supported`);
  }
  return Promise.all(urls.map((url, i) => loadInputImage(ctx, url, join(ctx.scratchDir, `input-${i}`))));
}

/** Opens an input image for further processing, with the same pixel limit it was checked with. */
export function openInputImage(image: InputImage): Sharp {
  return sharp(image.file, { limitInputPixels: INPUT_IMAGE_MAX_PIXELS }).autoOrient();
}

async function loadInputImage(ctx: RunContext, url: string, file: string): Promise<InputImage> {
  const where = `input image ${displayUrl(url)}`;
  try {
    await downloadToFile(url, file, {
      fetch: ctx.fetchInput,
      signal: ctx.signal,
      timeoutMs: INPUT_IMAGE_TIMEOUT_MS,
      maxBytes: INPUT_IMAGE_MAX_BYTES,
    });
  } catch (error) {
    if (error instanceof DownloadError)
      throw new WorkerError('GENERATION_FAILED', `${where} ${error.message}${missingUpload(url, error)}`);
    throw error;
  }
  try {
    const image = sharp(file, { limitInputPixels: INPUT_IMAGE_MAX_PIXELS, failOn: 'error' });
    const { autoOrient } = await image.metadata();
    // Decoding every pixel (into a tiny thumbnail, so memory stays small) is what proves the
    // file is an image we can use; the header alone would let a truncated file through.
    await image.autoOrient().resize(32, 32, { fit: 'inside' }).raw().toBuffer();
    return { url, file, width: autoOrient.width, height: autoOrient.height };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new WorkerError('GENERATION_FAILED', `${where} could not be decoded as an image (${reason})`);
  }
}

/** What a 404 of one of the service's upload URLs (`…/uploads/<account folder>/<fileId>`) means to the client. */
function missingUpload(url: string, error: DownloadError): string {
  const upload =
    error.status === 404 && URL.canParse(url) && /\/uploads\/[^/]+\/[^/]+$/.test(new URL(url).pathname);
  return upload ? ': the uploaded file is not there (never PUT to its uploadUrl, or expired)' : '';
}
