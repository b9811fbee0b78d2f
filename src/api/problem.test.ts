import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES } from '../errors.ts';
import { knownError, problemBody } from './problem.ts';

/** The shape client-node throws: the HTTP code and the Status object as raw text. */
const apiException = (code: number, reason: string) =>
  Object.assign(new Error(reason), {
    code,
    body: JSON.stringify({ kind: 'Status', code, reason }),
  });

describe('knownError', () => {
  it.each([
    ['a lost compare-and-swap (a busy ledger Account)', apiException(409, 'Conflict')],
    ['a throttled write', apiException(429, 'TooManyRequests')],
    ['an apiserver error', apiException(500, 'InternalError')],
    ['an apiserver that cannot serve', apiException(503, 'ServiceUnavailable')],
  ])('%s is a retryable 503 UNAVAILABLE, not a 500', (_what, err) => {
    const e = knownError(err);
    expect([e?.status, e?.code]).toEqual([503, 'UNAVAILABLE']);
  });

  it('AlreadyExists (a 409 that is not a conflict) and plain bugs stay unknown: a 500', () => {
    expect(knownError(apiException(409, 'AlreadyExists'))).toBeUndefined();
    expect(knownError(new TypeError('x is undefined'))).toBeUndefined();
  });
});

describe('problemBody', () => {
  it("titles every code's status with its HTTP reason phrase", () => {
    const untitled = ERROR_CODES.filter(
      (code) => problemBody(new AppError(code, 'x'), 'r').title === 'Error',
    );
    expect(untitled).toEqual([]);
  });
});
