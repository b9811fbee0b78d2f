import { AppError } from '../errors.ts';
import type { OutputType } from '../k8s/types.ts';

/**
 * The media types a worker stores as a job's files, with the type of output item and the
 * file extension each makes: what it re-hosts from a model server, and what the built-in
 * models write (PNG, MP4, the JPEG poster, the WebP thumbnail). A worker's grant may PUT
 * these only, so it cannot place an HTML or SVG page among a job's public files.
 */
export const OUTPUT_MEDIA: Readonly<Record<string, { type: OutputType; ext: string }>> = {
  'image/png': { type: 'image', ext: 'png' },
  'image/jpeg': { type: 'image', ext: 'jpg' },
  'image/webp': { type: 'image', ext: 'webp' },
  'image/gif': { type: 'image', ext: 'gif' },
  'video/mp4': { type: 'video', ext: 'mp4' },
  'video/webm': { type: 'video', ext: 'webm' },
  'video/quicktime': { type: 'video', ext: 'mov' },
  'audio/mpeg': { type: 'audio', ext: 'mp3' },
  'audio/wav': { type: 'audio', ext: 'wav' },
  'audio/ogg': { type: 'audio', ext: 'ogg' },
  'audio/flac': { type: 'audio', ext: 'flac' },
  'text/plain': { type: 'text', ext: 'txt' },
  'application/json': { type: 'text', ext: 'json' },
};

const TOKEN = '[a-z0-9!#$&^_.+-]+';
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\r\\n]*"))*$`,
  'i',
);

/** Whether `value` is a well-formed `type/subtype[; param=value]` with no control characters. */
export function isValidMediaType(value: string): boolean {
  return value.length <= 255 && MEDIA_TYPE.test(value);
}

/** The lowercased `type/subtype` of a Content-Type value, without parameters. */
export function essence(value: string): string {
  return (value.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/** Whether a request's Content-Type names the same media type as the expected one (parameters ignored). */
export function sameMediaType(actual: string | undefined, expected: string): boolean {
  return actual !== undefined && essence(actual) === essence(expected);
}

/** Throws a VALIDATION_ERROR unless {@link isValidMediaType}. */
export function assertValidMediaType(value: string): void {
  if (!isValidMediaType(value))
    throw new AppError('VALIDATION_ERROR', `invalid content type: ${JSON.stringify(value)}`);
}
