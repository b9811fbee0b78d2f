import { WorkerError } from '../errors.ts';
import { IMAGE_RESOLUTIONS, type ImageResolution, VIDEO_RESOLUTIONS, type VideoResolution } from './size.ts';

/**
 * Readers for the job input fields of spec section 2.13. The api has already validated the
 * input against the model's schema, so these only coerce (`"8"` and `8`, `"true"` and
 * `true`), fill the defaults and name the field when something still does not fit.
 * Defaults follow the spec's default-cost cases: 1k images; 8 s 720p videos with sound.
 */
export type Input = Record<string, unknown>;

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export function readPrompt(input: Input): string {
  const prompt = input.prompt ?? '';
  if (typeof prompt !== 'string') throw invalid('prompt', 'must be a string');
  return prompt;
}

export function readAspectRatio(input: Input, fallback: string): string {
  const value = input.aspect_ratio ?? input.aspectRatio ?? fallback;
  if (typeof value !== 'string') throw invalid('aspect_ratio', 'must be a string such as "16:9"');
  return value;
}

export function readImageResolution(input: Input): ImageResolution {
  return readChoice(input, 'resolution', IMAGE_RESOLUTIONS, '1k');
}

export function readVideoResolution(input: Input): VideoResolution {
  return readChoice(input, 'resolution', VIDEO_RESOLUTIONS, '720p');
}

export function readImageFormat(input: Input): ImageFormat {
  const value = input.output_format === 'jpg' ? 'jpeg' : input.output_format;
  return readChoice({ output_format: value }, 'output_format', IMAGE_FORMATS, 'png');
}

/** Seconds, from `"8"` or `8`; 1 to 30 (the catalog's widest schema), fractions allowed. */
export function readDuration(input: Input): number {
  const value = input.duration ?? 8;
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 1 || seconds > 30) {
    throw invalid('duration', 'must be a number of seconds from 1 to 30');
  }
  return seconds;
}

export function readHasSound(input: Input): boolean {
  const value = input.has_sound ?? true;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid('has_sound', 'must be true or false');
}

/** The seed: the one given to the job, else the input's `seed`, else 0. */
export function readSeed(input: Input, seed: number | undefined): number {
  const value = seed ?? input.seed ?? 0;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number))
    throw invalid('seed', 'must be an integer');
  return number;
}

/** The input image URLs: `image_urls`, or the single `image` an upload walk-through sends. */
export function readImageUrls(input: Input): string[] {
  const value = input.image_urls ?? (input.image === undefined ? [] : [input.image]);
  if (!Array.isArray(value) || !value.every((url) => typeof url === 'string' && url !== '')) {
    throw invalid('image_urls', 'must be an array of URLs');
  }
  return value;
}

function readChoice<T extends string>(input: Input, field: string, choices: readonly T[], fallback: T): T {
  const raw = input[field] ?? fallback;
  const value = typeof raw === 'string' ? raw.toLowerCase() : raw;
  if (!choices.includes(value as T)) throw invalid(field, `must be one of ${choices.join(', ')}`);
  return value as T;
}

function invalid(field: string, problem: string): WorkerError {
  return new WorkerError('GENERATION_FAILED', `input.${field} ${problem}`);
}
