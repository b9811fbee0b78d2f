import { describe, expect, it } from 'vitest';
import {
  type DeliveryOutcome,
  isDue,
  MAX_ATTEMPTS,
  nextDelivery,
  parseRetryAfter,
  startDelivery,
  type WebhookDeliveryStatus,
} from './schedule.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const mid = () => 0.5;
const serverError: DeliveryOutcome = { kind: 'http_error', status: 500 };

/** The record after `n` failed attempts, each made exactly when due. */
function afterFailures(n: number, random = mid): WebhookDeliveryStatus {
  let status = startDelivery('msg_1', T0);
  for (let i = 0; i < n; i++)
    status = nextDelivery(status, serverError, Date.parse(status.nextAttemptAt ?? ''), random);
  return status;
}

const delayAfter = (status: WebhookDeliveryStatus, at: number) => Date.parse(status.nextAttemptAt ?? '') - at;

describe('webhook retry schedule', () => {
  it('starts with an attempt due now', () => {
    const status = startDelivery('msg_1', T0);
    expect(status).toEqual({
      id: 'msg_1',
      attempts: 0,
      state: 'pending',
      nextAttemptAt: '2030-01-01T00:00:00.000Z',
    });
    expect(isDue(status, T0)).toBe(true);
    expect(isDue(status, T0 - 1)).toBe(false);
  });

  it.each([
    [1, 5_000],
    [2, 5 * 60_000],
    [3, 30 * 60_000],
    [4, 2 * 3_600_000],
    [5, 5 * 3_600_000],
    [6, 10 * 3_600_000],
    [7, 10 * 3_600_000],
  ])('waits the scheduled delay after failure %i', (failures, delay) => {
    const before = afterFailures(failures - 1);
    const at = Date.parse(before.nextAttemptAt ?? '');
    const after = nextDelivery(before, serverError, at, mid);
    expect(after).toMatchObject({ state: 'pending', attempts: failures, lastResult: 'HTTP 500' });
    expect(delayAfter(after, at)).toBe(delay);
  });

  it.each([
    [0, 0.9],
    [0.999999, 1.1],
  ])('jitters each delay by at most 10%% (random %d)', (r, factor) => {
    const after = nextDelivery(startDelivery('m', T0), serverError, T0, () => r);
    expect(delayAfter(after, T0)).toBeCloseTo(5_000 * factor, -1);
  });

  it(`fails after ${MAX_ATTEMPTS} attempts`, () => {
    const status = afterFailures(MAX_ATTEMPTS);
    expect(status.state).toBe('failed');
    expect(status.attempts).toBe(MAX_ATTEMPTS);
    expect(status.nextAttemptAt).toBeUndefined();
    expect(isDue(status, T0 + 100 * 3_600_000)).toBe(false);
  });

  it.each<[string, DeliveryOutcome, Partial<WebhookDeliveryStatus>]>([
    [
      '2xx',
      { kind: 'success', status: 204 },
      { state: 'delivered', lastResult: 'HTTP 204', deliveredAt: '2030-01-01T00:00:00.000Z' },
    ],
    ['410 Gone', { kind: 'http_error', status: 410 }, { state: 'failed', lastResult: 'HTTP 410' }],
    [
      'a refused target',
      { kind: 'refused', reason: 'loopback address' },
      { state: 'failed', lastResult: 'refused: loopback address' },
    ],
    ['a 3xx', { kind: 'http_error', status: 302 }, { state: 'pending', lastResult: 'HTTP 302' }],
    ['a 4xx', { kind: 'http_error', status: 400 }, { state: 'pending', lastResult: 'HTTP 400' }],
    ['a timeout', { kind: 'timeout' }, { state: 'pending', lastResult: 'timeout' }],
    [
      'a network error',
      { kind: 'network', message: 'ECONNRESET' },
      { state: 'pending', lastResult: 'network error: ECONNRESET' },
    ],
  ])('after %s the delivery is %o', (_, outcome, expected) => {
    const status = nextDelivery(startDelivery('msg_1', T0), outcome, T0, mid);
    expect(status).toMatchObject({ id: 'msg_1', attempts: 1, ...expected });
    expect(status.nextAttemptAt === undefined).toBe(expected.state !== 'pending');
  });

  it('keeps a delivered or failed record as it is', () => {
    const delivered = nextDelivery(startDelivery('m', T0), { kind: 'success', status: 200 }, T0, mid);
    expect(nextDelivery(delivered, serverError, T0 + 1, mid)).toBe(delivered);
  });

  it.each([
    ['longer delay-seconds', '120', 120_000],
    ['a shorter delay than the schedule', '1', 5_000],
    ['an HTTP date', new Date(T0 + 600_000).toUTCString(), 600_000],
    ['a delay beyond the cap', String(3 * 24 * 3600), 10 * 3_600_000],
    ['garbage', 'soon', 5_000],
  ])('honours Retry-After with %s', (_, retryAfter, delay) => {
    const after = nextDelivery(
      startDelivery('m', T0),
      { kind: 'http_error', status: 429, retryAfter },
      T0,
      mid,
    );
    expect(delayAfter(after, T0)).toBe(delay);
  });

  it.each([
    ['0', 0],
    [' 30 ', 30_000],
    ['Tue, 01 Jan 2030 00:00:10 GMT', 10_000],
    ['Mon, 31 Dec 2029 00:00:00 GMT', 0],
    ['-5', undefined],
    ['1.5', undefined],
    [undefined, undefined],
  ])('parses Retry-After %j as %j ms', (value, ms) => {
    expect(parseRetryAfter(value, T0)).toBe(ms);
  });
});
