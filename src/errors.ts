/**
 * The closed set of error codes the service answers with, and the one place that maps
 * each to its HTTP status. Handlers throw {@link AppError}; the error middleware turns it
 * into an RFC 9457 problem body. Controllers use {@link AppError.retryable} to decide
 * whether a failure is worth another attempt.
 */
export const ERROR_CODES = [
  // spec section 7
  'MODEL_NOT_FOUND',
  'INSUFFICIENT_BALANCE',
  'INVALID_INPUT',
  'CONCURRENT_JOBS_EXCEEDED',
  'MODEL_ACCESS_DENIED',
  'PUBSUB_PUBLISH_FAILED',
  'JOB_NOT_FOUND',
  'UNAUTHORIZED_ACCESS',
  'JOB_CANNOT_BE_CANCELLED',
  'VALIDATION_ERROR',
  'INVALID_CONTENT_TYPE',
  'NOT_FOUND',
  // authentication (DESIGN.md, issue "Accounts")
  'UNAUTHENTICATED',
  'INVALID_API_KEY',
  'INSUFFICIENT_SCOPE',
  // HTTP plumbing
  'MALFORMED_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_KEY_REUSED',
  'SIGNATURE_INVALID',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The codes answered with an HTTP status, in {@link ERROR_CODES} order (the OpenAPI document's enums). */
export function codesWithStatus(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => httpStatus(code) === status);
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}

/** HTTP status of each code. Exhaustive: adding a code without a status fails to compile. */
export function httpStatus(code: ErrorCode): number {
  switch (code) {
    case 'MALFORMED_REQUEST':
    case 'VALIDATION_ERROR':
    case 'INVALID_CONTENT_TYPE':
      return 400;
    case 'UNAUTHENTICATED':
    case 'INVALID_API_KEY':
      return 401;
    case 'INSUFFICIENT_BALANCE':
      return 402;
    case 'INSUFFICIENT_SCOPE':
    case 'MODEL_ACCESS_DENIED':
    case 'UNAUTHORIZED_ACCESS':
    case 'SIGNATURE_INVALID':
      return 403;
    case 'MODEL_NOT_FOUND':
    case 'JOB_NOT_FOUND':
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'REQUEST_TIMEOUT':
      return 408;
    case 'JOB_CANNOT_BE_CANCELLED':
    case 'IDEMPOTENCY_KEY_REUSED':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'HEADERS_TOO_LARGE':
      return 431;
    case 'INVALID_INPUT':
      return 422;
    case 'CONCURRENT_JOBS_EXCEEDED':
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL':
      return 500;
    case 'PUBSUB_PUBLISH_FAILED':
    case 'UNAVAILABLE':
      return 503;
    default:
      return assertNever(code);
  }
}

/** Whether a client may retry the same request and expect a different outcome. */
export function isRetryable(code: ErrorCode): boolean {
  return (
    code === 'PUBSUB_PUBLISH_FAILED' ||
    code === 'UNAVAILABLE' ||
    code === 'REQUEST_TIMEOUT' ||
    code === 'CONCURRENT_JOBS_EXCEEDED' ||
    code === 'RATE_LIMITED'
  );
}

/** One failing field of a request, as a JSON pointer into the body and a message. */
export interface FieldError {
  pointer: string;
  message: string;
}

export interface AppErrorOptions {
  /** Failing fields, reported as `errors` in the problem body. */
  errors?: FieldError[];
  /** Seconds after which a retry makes sense; sent as Retry-After. */
  retryAfterSeconds?: number;
  /** Whether this one may succeed when retried, where its code's rule does not say (a 402 while credit is on its way back). */
  retryable?: boolean;
  cause?: unknown;
}

/** An error with a stable code, safe to show to the client (the message is public). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly #retryable: boolean | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.#retryable = options.retryable;
  }

  get status(): number {
    return httpStatus(this.code);
  }

  get retryable(): boolean {
    return this.#retryable ?? isRetryable(this.code);
  }
}
