/**
 * Reading the apiserver's answers: client-node throws ApiException with the HTTP code and,
 * for most errors, the Status object as raw text.
 */

interface StatusLike {
  code?: number;
  reason?: string;
  message?: string;
}

export function statusCode(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number') {
    return err.code;
  }
  return undefined;
}

export const isNotFound = (err: unknown): boolean => statusCode(err) === 404;
/** A resourceVersion conflict (not AlreadyExists, which shares the 409). */
export const isConflict = (err: unknown): boolean =>
  statusCode(err) === 409 && statusOf(err)?.reason !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): boolean =>
  statusCode(err) === 409 && statusOf(err)?.reason === 'AlreadyExists';
export const isForbidden = (err: unknown): boolean => statusCode(err) === 403;

/** The Status object of an apiserver error, parsed from the exception body. */
export function statusOf(err: unknown): StatusLike | undefined {
  if (typeof err !== 'object' || err === null || !('body' in err)) return undefined;
  const body = err.body;
  if (typeof body === 'object' && body !== null) return body as StatusLike;
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body) as StatusLike;
  } catch {
    return undefined;
  }
}

/** The apiserver's own message, for logs and for surfacing schema rejections. */
export function apiMessage(err: unknown): string {
  const status = statusOf(err);
  if (status?.message) return status.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The apiserver could not be reached within a call's deadline (no answer, no connection).
 * The call's outcome is unknown: a write may still have landed. Safe to retry once the
 * apiserver is back, after about `retryAfterSeconds`.
 */
export class ApiserverUnavailable extends Error {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApiserverUnavailable';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Whether an error means the apiserver is away or could not serve: no answer in time, no
 * connection, or a 5xx of its own (its storage is away, it is overloaded). Clients get a
 * retryable 503 for these, never a 500.
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof ApiserverUnavailable) return true;
  const code = statusCode(err);
  return code !== undefined && code >= 500 && typeof err === 'object' && err !== null && 'body' in err;
}
