/**
 * Bounds on a job input and on the answer that refuses one. A request body may be up to
 * the api's body limit (256 KB), and without these bounds a body that size could produce
 * an error answer thirty times larger (one entry per failing array item), a 500 from
 * nesting deeper than the stack (`structuredClone`), or a job that cannot start (the worker
 * gets the job in one environment variable, which Linux caps at 128 KiB).
 */
import { AppError, type FieldError } from '../errors.ts';

/** Deepest nesting of objects and arrays accepted in a job input (the input object is depth 1). */
export const MAX_INPUT_DEPTH = 32;
/**
 * Largest job input, as compact JSON. The worker receives the whole job (input and a few
 * hundred bytes of ids) in one environment variable, and one variable may not exceed
 * 128 KiB (MAX_ARG_STRLEN): 96 KiB leaves room for the rest and for JSON escaping.
 */
export const MAX_INPUT_BYTES = 96 * 1024;
/** Field errors listed in one answer; the message says how many more there were. */
export const MAX_FIELD_ERRORS = 20;
/** Longest message of one field error and longest summary, in characters. */
export const MAX_ERROR_MESSAGE = 300;
export const MAX_SUMMARY = 2_000;

/**
 * Refuses (422 INVALID_INPUT) an input nested deeper than {@link MAX_INPUT_DEPTH} or larger
 * than {@link MAX_INPUT_BYTES}. Walks iteratively, so a pathological depth cannot overflow
 * the stack here either; stops at the first level too deep.
 */
export function checkInputBounds(input: unknown): void {
  const stack: Array<[unknown, number]> = [[input, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_INPUT_DEPTH) {
      throw new AppError('INVALID_INPUT', `input is nested more than ${MAX_INPUT_DEPTH} levels deep`, {
        errors: [{ pointer: '/input', message: `nested more than ${MAX_INPUT_DEPTH} levels deep` }],
      });
    }
    for (const child of Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(input) ?? '');
  if (bytes > MAX_INPUT_BYTES) {
    throw new AppError(
      'INVALID_INPUT',
      `input is ${bytes} bytes as JSON; at most ${MAX_INPUT_BYTES} are accepted`,
      { errors: [{ pointer: '/input', message: `larger than ${MAX_INPUT_BYTES} bytes` }] },
    );
  }
}

/**
 * The first {@link MAX_FIELD_ERRORS} field errors, each message shortened, and a summary
 * of bounded length that says how many were left out.
 */
export function capFieldErrors(errors: FieldError[]): { errors: FieldError[]; summary: string } {
  const kept = errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({
    pointer: clip(e.pointer, MAX_ERROR_MESSAGE),
    message: clip(e.message, MAX_ERROR_MESSAGE),
  }));
  const more = errors.length - kept.length;
  const listed = kept.map((e) => `${e.pointer} ${e.message}`).join('; ');
  const summary = clip(listed, MAX_SUMMARY) + (more > 0 ? ` (and ${more} more)` : '');
  return { errors: kept, summary };
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
