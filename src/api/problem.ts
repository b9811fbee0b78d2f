import type { NextFunction, Request, Response } from 'express';
import { AppError, type ErrorCode, httpStatus } from '../errors.ts';
import { ApiserverUnavailable, isConflict, isUnavailable, statusCode } from '../k8s/errors.ts';
import { locals } from './request.ts';

const TITLES: Partial<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Errors thrown by body-parser (and other http-errors) carry a status and a type. */
interface HttpError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

function fromHttpError(err: HttpError): AppError | undefined {
  const status = err.status ?? err.statusCode;
  if (!status || status < 400 || status >= 500) return undefined;
  const code: ErrorCode =
    err.type === 'entity.parse.failed'
      ? 'MALFORMED_REQUEST'
      : err.type === 'entity.too.large'
        ? 'PAYLOAD_TOO_LARGE'
        : err.type === 'charset.unsupported' || err.type === 'encoding.unsupported' || status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : status === 416
            ? 'VALIDATION_ERROR'
            : 'MALFORMED_REQUEST';
  const message =
    code === 'MALFORMED_REQUEST' && err.type === 'entity.parse.failed'
      ? 'request body is not valid JSON'
      : code === 'PAYLOAD_TOO_LARGE'
        ? 'request body is too large'
        : (err.message ?? 'bad request');
  return new AppError(code, message);
}

/**
 * An apiserver that did not answer in time (or could not serve) is a retryable 503, never a
 * 500; so is a write that kept losing its compare-and-swap (a busy ledger Account) or was
 * throttled (429): the same request succeeds a moment later.
 */
function fromApiserver(err: unknown): AppError | undefined {
  if (!isUnavailable(err) && !isConflict(err) && statusCode(err) !== 429) return undefined;
  return new AppError('UNAVAILABLE', 'the service could not reach its storage in time; please retry', {
    retryAfterSeconds: err instanceof ApiserverUnavailable ? err.retryAfterSeconds : 1,
    cause: err,
  });
}

/** The AppError an error stands for, or undefined for a bug (answered as a 500). */
export function knownError(err: unknown): AppError | undefined {
  return err instanceof AppError ? err : (fromApiserver(err) ?? fromHttpError(err as HttpError));
}

/**
 * The one place errors become HTTP answers: RFC 9457 problem+json with the extension
 * members `code`, `requestId` and `retryable` (and `errors` for field-level problems).
 * Anything that is not an AppError is a bug or an outage: logged with its stack, answered
 * as a 500 without one.
 */
export function problemHandler() {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const l = locals(res);
    const appError = knownError(err);
    // The client went away mid-request (a worker stopped during its upload): no one to
    // answer, and no fault of the service's. Known by its connection, not by the request
    // stream: a body the handler stopped reading is destroyed with its client still there,
    // waiting for the answer.
    if (!appError && (req.socket?.destroyed ?? req.destroyed)) {
      l.log?.info({ err: (err as Error).message }, 'the client went away during the request');
      return;
    }
    const e =
      appError ?? new AppError('INTERNAL', 'internal error; the request id identifies it in the logs');
    if (!appError) l.log?.error({ err }, 'unhandled error');
    else if (e.status >= 500) l.log?.warn({ code: e.code, err: e.cause ?? e.message }, 'request failed');
    if (res.headersSent) return;
    // A body left unread (its stream destroyed) is not drained: the connection closes after the answer.
    if (req.destroyed) res.setHeader('Connection', 'close');
    sendProblem(res, e);
  };
}

export function sendProblem(res: Response, error: AppError): void {
  const l = locals(res);
  // The upload API answers in its own codes (spec 4.5): a body that is not JSON names no
  // valid filename or contentType.
  const e =
    l.wrapped && error.code === 'MALFORMED_REQUEST' ? new AppError('VALIDATION_ERROR', error.message) : error;
  const status = httpStatus(e.code);
  l.code = e.code;
  if (e.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.ceil(e.retryAfterSeconds)));
  // A 401 says how to authenticate (RFC 9110): a Bearer token (RFC 6750: invalid_token for a
  // key that was sent and refused), or the x-api-key header of the endpoints that read it.
  if (status === 401) {
    const error = e.code === 'INVALID_API_KEY' ? ', error="invalid_token"' : '';
    res.setHeader(
      'WWW-Authenticate',
      l.credentialSource === 'x-api-key'
        ? 'ApiKey realm="genjobs", header="x-api-key"'
        : `Bearer realm="genjobs"${error}`,
    );
  }
  res
    .status(status)
    .type('application/problem+json')
    .json({ ...(l.wrapped ? { success: false } : {}), ...problemBody(e, l.requestId) });
}

/** The RFC 9457 body of an error; also written by hand for requests Express never saw (server.ts). */
export function problemBody(e: AppError, requestId: string) {
  const status = httpStatus(e.code);
  return {
    type: `https://genjobs.io/problems/${e.code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: e.message,
    code: e.code,
    requestId,
    retryable: e.retryable,
    ...(e.errors ? { errors: e.errors } : {}),
  };
}
