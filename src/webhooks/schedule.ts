import { assertNever } from '../errors.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt, by the number of attempts already made (Standard Webhooks schedule). */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];
/** Attempts before a delivery is given up. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** A receiver's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 10 * HOUR;
/** Each delay is spread by ±10% so a receiver that comes back is not hit by every retry at once. */
const JITTER = 0.1;

/** Where one job's webhook delivery stands. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The webhook delivery record kept in the GenerationJob status, so a controller restart loses nothing. */
export interface WebhookDeliveryStatus {
  /** `webhook-id`, the same on every attempt. */
  id?: string;
  attempts?: number;
  /** ISO 8601; absent once the delivery is delivered or failed. */
  nextAttemptAt?: string;
  /** Short description of the last attempt: `HTTP 503`, `timeout`, ... */
  lastResult?: string;
  state?: DeliveryState;
  deliveredAt?: string;
}

/** What one attempt came to. */
export type DeliveryOutcome =
  | { kind: 'success'; status: number }
  /** Any non-2xx answer, 3xx included (redirects are never followed). */
  | { kind: 'http_error'; status: number; retryAfter?: string | undefined }
  | { kind: 'timeout' }
  | { kind: 'network'; message: string }
  /** The target is not allowed (not https, or not a public address): not worth retrying. */
  | { kind: 'refused'; reason: string };

/** The record of a delivery that should be attempted now. */
export function startDelivery(id: string, now: number): WebhookDeliveryStatus {
  return { id, attempts: 0, state: 'pending', nextAttemptAt: new Date(now).toISOString() };
}

/** Whether the delivery waits for an attempt at `now` or earlier. */
export function isDue(status: WebhookDeliveryStatus, now: number): boolean {
  return (
    status.state === 'pending' &&
    (status.nextAttemptAt === undefined || Date.parse(status.nextAttemptAt) <= now)
  );
}

/**
 * The record after one attempt with `outcome` at `now`: delivered on 2xx; failed on 410,
 * on a refused target or after {@link MAX_ATTEMPTS}; otherwise pending until the next step
 * of the schedule, jittered with `random()` (in [0, 1)) and never sooner than Retry-After.
 * A delivered or failed record is returned unchanged.
 */
export function nextDelivery(
  status: WebhookDeliveryStatus,
  outcome: DeliveryOutcome,
  now: number,
  random: () => number,
): WebhookDeliveryStatus {
  if (status.state === 'delivered' || status.state === 'failed') return status;
  const { nextAttemptAt: _, ...rest } = status;
  const attempts = (status.attempts ?? 0) + 1;
  const base = { ...rest, attempts, lastResult: describe(outcome) };
  if (outcome.kind === 'success')
    return { ...base, state: 'delivered', deliveredAt: new Date(now).toISOString() };
  if (isFinal(outcome) || attempts >= MAX_ATTEMPTS) return { ...base, state: 'failed' };
  const scheduled = (RETRY_SCHEDULE_MS[attempts] ?? 0) * (1 - JITTER + 2 * JITTER * random());
  const retryAfter = outcome.kind === 'http_error' ? parseRetryAfter(outcome.retryAfter, now) : undefined;
  const delay = Math.round(Math.max(scheduled, Math.min(retryAfter ?? 0, MAX_RETRY_AFTER_MS)));
  return { ...base, state: 'pending', nextAttemptAt: new Date(now + delay).toISOString() };
}

/** Milliseconds a Retry-After value (delay-seconds or HTTP-date) asks to wait, if it is valid. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  // HTTP-dates start with a day name; without this check Date.parse reads '-5' as a year.
  const date = /^[a-z]{3}/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isFinal(outcome: DeliveryOutcome): boolean {
  return outcome.kind === 'refused' || (outcome.kind === 'http_error' && outcome.status === 410);
}

function describe(outcome: DeliveryOutcome): string {
  switch (outcome.kind) {
    case 'success':
    case 'http_error':
      return `HTTP ${outcome.status}`;
    case 'timeout':
      return 'timeout';
    case 'network':
      return `network error: ${outcome.message}`.slice(0, 200);
    case 'refused':
      return `refused: ${outcome.reason}`.slice(0, 200);
    default:
      return assertNever(outcome);
  }
}
