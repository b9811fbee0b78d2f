import { open } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import type { RunContext } from '../context.ts';
import { DownloadError, displayUrl, downloadToFile } from '../download.ts';
import { WorkerError } from '../errors.ts';
import { type RetrySchedule, withRetries } from '../retry.ts';

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

/**
 * How long one of the service's own files (an upload) that gets no answer or a 5xx is
 * waited for: the store behind the api's /files on a blip must not fail the job for good.
 * The waits double from 1 s up to 15 s, 60 s in all. Another host's failure is final.
 */
export const INPUT_RETRY: RetrySchedule = { firstMs: 1_000, maxMs: 15_000, budgetMs: 60_000 };

async function loadInputImage(ctx: RunContext, url: string, file: string): Promise<InputImage> {
  const where = `input image ${displayUrl(url)}`;
  await withRetries(ctx, INPUT_RETRY, {
    attempt: () =>
      downloadToFile(url, file, {
        fetch: ctx.fetchInput,
        signal: ctx.signal,
        timeoutMs: INPUT_IMAGE_TIMEOUT_MS,
        maxBytes: INPUT_IMAGE_MAX_BYTES,
      }),
    retryable: (error) => error instanceof DownloadError && error.retryable && ctx.ownFile(url),
    onRetry: (error, attempt, waitMs) =>
      ctx.log?.warn(
        { input: displayUrl(url), attempt, waitMs, err: (error as Error).message },
        'fetching an input failed; retrying',
      ),
    giveUp: (error, attempts) =>
      error instanceof DownloadError
        ? new WorkerError(
            'GENERATION_FAILED',
            `${where} ${error.message}${attempts > 1 ? ` (${attempts} tries)` : ''}${missingUpload(url, error)}`,
          )
        : (error as Error),
  });
  if (!rasterFormat(await readHead(file))) {
    throw new WorkerError(
      'GENERATION_FAILED',
      `${where} is not a PNG, JPEG, WebP or GIF image (the input images a model takes)`,
    );
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

/**
 * The raster format of a file, by its first bytes, or undefined: the formats an upload may be
 * (uploads/policy.ts). Checked before any decoder sees it, so SVG (librsvg: a document with
 * links and entities), PDF, TIFF and the rest never reach one; sharp would open them all.
 */
function rasterFormat(head: Buffer): 'png' | 'jpeg' | 'webp' | 'gif' | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpeg';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (/^GIF8[79]a$/.test(head.toString('latin1', 0, 6))) return 'gif';
  return undefined;
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(12), 0, 12, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What a 404 of one of the service's upload URLs (`…/uploads/<account folder>/<fileId>`) means to the client. */
function missingUpload(url: string, error: DownloadError): string {
  const upload =
    error.status === 404 && URL.canParse(url) && /\/uploads\/[^/]+\/[^/]+$/.test(new URL(url).pathname);
  return upload
    ? ': the uploaded file is not there (never PUT to its uploadUrl, larger than its type allows, or expired)'
    : '';
}
