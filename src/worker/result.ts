import { OUTPUT_TYPES, type OutputItem, type OutputType } from '../k8s/types.ts';

/**
 * The worker result protocol: one JSON object the worker writes to its container's
 * termination message and the controller reads back from the Pod status.
 *
 * An input URL that cannot be fetched or decoded is reported as `GENERATION_FAILED` (the
 * message names the URL), not as a code of its own: the spec gives failed jobs exactly one
 * public code for "the generation did not produce output", the refund is the same, and
 * clients written against the spec switch on it. The message is what tells them why.
 */
export const WORKER_ERROR_CODES = [
  /** The model failed to produce output, including inputs it could not use (a bad image URL). */
  'GENERATION_FAILED',
  /** The upstream prediction server was unreachable, answered 5xx or spoke no protocol we know. */
  'UPSTREAM_ERROR',
  /** The generation did not finish within the runtime's deadline. */
  'TIMEOUT',
  /** The outputs could not be written to the blob store. */
  'OUTPUT_STORE_FAILED',
  /**
   * The worker was stopped (SIGTERM: eviction, node drain, Pod deletion) before it finished.
   * Not the model's fault: the controller treats it like a lost Pod.
   */
  'INTERRUPTED',
  /** The job handed to the worker (file or env) is missing or malformed: a controller bug. */
  'INVALID_JOB',
  /** The worker's report is unreadable, or the model produced output the service cannot use. */
  'INVALID_OUTPUT',
  /** An unexpected error inside the worker. */
  'INTERNAL',
] as const;
export type WorkerErrorCode = (typeof WORKER_ERROR_CODES)[number];

/**
 * What a worker reports: its outputs, or why it has none. `message` is what the job's owner
 * reads; `detail`, when there is one, is for operators (a Warning Event), never the job's error.
 */
export type WorkerResult =
  | { ok: true; outputs: OutputItem[] }
  | { ok: false; error: { code: WorkerErrorCode; message: string; detail?: string } };

/** Kubernetes keeps at most this many bytes of a container's termination message. */
export const TERMINATION_MESSAGE_LIMIT = 4096;

const ELLIPSIS = '…';

/**
 * The result as JSON of at most {@link TERMINATION_MESSAGE_LIMIT} UTF-8 bytes. The
 * operators' detail is shortened (or dropped) first, then the owner's message; outputs
 * cannot be shortened, so too many of them become an `INVALID_OUTPUT` failure rather than a
 * truncated (unparseable) message.
 */
export function encodeWorkerResult(result: WorkerResult, limit = TERMINATION_MESSAGE_LIMIT): string {
  const text = JSON.stringify(result);
  if (byteLength(text) <= limit) return text;
  if (result.ok) {
    return encodeWorkerResult(
      failure('INVALID_OUTPUT', `the worker produced ${result.outputs.length} outputs, too many to report`),
      limit,
    );
  }
  const { code, message, detail } = result.error;
  if (detail !== undefined) {
    const fits = (d: string) => byteLength(JSON.stringify(failure(code, message, d))) <= limit;
    const shortened = shorten(detail, fits);
    return shortened === undefined
      ? encodeWorkerResult(failure(code, message), limit)
      : JSON.stringify(failure(code, message, shortened));
  }
  const shortened =
    shorten(message, (m) => byteLength(JSON.stringify(failure(code, m))) <= limit) ?? ELLIPSIS;
  return JSON.stringify(failure(code, shortened));
}

/**
 * The longest start of `text` (in code points: JSON escaping makes bytes per character
 * uneven, hence a binary search) that `fits` with an ellipsis, or undefined if none does.
 */
function shorten(text: string, fits: (s: string) => boolean): string | undefined {
  const chars = Array.from(text);
  let lo = -1;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (mid >= 0 && fits(chars.slice(0, mid).join('') + ELLIPSIS)) lo = mid;
    else hi = mid - 1;
  }
  return lo < 0 ? undefined : chars.slice(0, lo).join('') + ELLIPSIS;
}

/**
 * Reads a worker's termination message. Never throws: anything that is not a valid result
 * (empty, truncated, garbage, unknown code, no outputs) becomes an `INVALID_OUTPUT` failure.
 */
export function parseWorkerResult(text: string | undefined): WorkerResult {
  if (text === undefined || text.trim() === '')
    return failure('INVALID_OUTPUT', 'the worker reported no result');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failure('INVALID_OUTPUT', `the worker's result is not JSON: ${preview(text)}`);
  }
  return validate(value);
}

/** A failed result. */
export function failure(code: WorkerErrorCode, message: string, detail?: string): WorkerResult {
  return { ok: false, error: { code, message, ...(detail !== undefined ? { detail } : {}) } };
}

/** Whether `value` is one of {@link WORKER_ERROR_CODES}. */
export function isWorkerErrorCode(value: unknown): value is WorkerErrorCode {
  return typeof value === 'string' && (WORKER_ERROR_CODES as readonly string[]).includes(value);
}

// Rebuilds the result from the fields it knows, so nothing unexpected reaches the job status.
function validate(value: unknown): WorkerResult {
  if (!isRecord(value)) return failure('INVALID_OUTPUT', 'the worker result is not an object');
  if (value.ok === false) {
    const error = value.error;
    if (!isRecord(error) || typeof error.message !== 'string') {
      return failure('INVALID_OUTPUT', 'the worker error has no message');
    }
    if (!isWorkerErrorCode(error.code)) {
      return failure(
        'INVALID_OUTPUT',
        `the worker reported an unknown error code: ${preview(String(error.code))}`,
      );
    }
    return failure(error.code, error.message, typeof error.detail === 'string' ? error.detail : undefined);
  }
  if (value.ok !== true) return failure('INVALID_OUTPUT', 'the worker result has no ok flag');
  if (!Array.isArray(value.outputs) || value.outputs.length === 0) {
    return failure('INVALID_OUTPUT', 'the worker reported no outputs');
  }
  const outputs: OutputItem[] = [];
  for (const [i, item] of value.outputs.entries()) {
    const parsed = parseItem(item);
    if (typeof parsed === 'string') return failure('INVALID_OUTPUT', `output ${i}: ${parsed}`);
    outputs.push(parsed);
  }
  return { ok: true, outputs };
}

function parseItem(item: unknown): OutputItem | string {
  if (!isRecord(item)) return 'not an object';
  const { type, url, thumbnail, posterImage } = item;
  if (!isOutputType(type)) return `unknown type ${preview(String(type))}`;
  if (!isHttpUrl(url)) return 'url is not an http(s) URL';
  const parsed: OutputItem = { url, type };
  if (thumbnail !== undefined) {
    if (!isHttpUrl(thumbnail)) return 'thumbnail is not an http(s) URL';
    parsed.thumbnail = thumbnail;
  }
  if (posterImage !== undefined) {
    if (!isHttpUrl(posterImage)) return 'posterImage is not an http(s) URL';
    parsed.posterImage = posterImage;
  }
  return parsed;
}

function isOutputType(value: unknown): value is OutputType {
  return (OUTPUT_TYPES as readonly unknown[]).includes(value);
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}${ELLIPSIS}` : text;
}
