import { AppError } from '../errors.ts';

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
