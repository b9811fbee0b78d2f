import { jobRecord, phaseOf } from '../../jobs/record.ts';
import type { GenerationJob } from '../../k8s/types.ts';
import type { WebhookEvent } from '../../webhooks/deliver.ts';
import {
  type DeliveryOutcome,
  isDue,
  nextDelivery,
  startDelivery,
  type WebhookDeliveryStatus,
} from '../../webhooks/schedule.ts';

/** What the webhook reconciler does next for one job. */
export type WebhookStep =
  /** No webhook to send: no webhookUrl, a phase that does not notify, or delivery settled. */
  | { kind: 'none' }
  /** First sight of a finished job: record the delivery (its id, due now) before any attempt. */
  | { kind: 'start'; webhook: WebhookDeliveryStatus }
  | { kind: 'deliver'; webhook: WebhookDeliveryStatus }
  | { kind: 'wait'; ms: number };

/** Whether the job notifies: it has a webhookUrl and completed or failed (spec 6; not cancelled). */
export function wantsWebhook(job: GenerationJob): boolean {
  const phase = phaseOf(job);
  return Boolean(job.spec.webhookUrl) && (phase === 'completed' || phase === 'failed');
}

/**
 * The `webhook-id` of a job's notification. From the object's uid, not its name: a job
 * name can come back (the same Idempotency-Key after the first job was garbage-collected),
 * and a receiver that de-duplicates by id must not drop the second job's event.
 */
export function webhookId(job: GenerationJob): string {
  return `msg_${(job.metadata.uid ?? job.metadata.name ?? '').replaceAll('-', '')}`;
}

/** The body of a job's notification: the same on every attempt. */
export function webhookEvent(job: GenerationJob): WebhookEvent {
  return {
    type: phaseOf(job) === 'completed' ? 'job.completed' : 'job.failed',
    timestamp: job.status?.completedAt ?? job.metadata.creationTimestamp ?? new Date(0).toISOString(),
    data: jobRecord(job),
  };
}

/** The next step for `job` at `now`, from its status alone. */
export function webhookStep(job: GenerationJob, now: number): WebhookStep {
  if (!wantsWebhook(job)) return { kind: 'none' };
  const webhook = job.status?.webhook;
  if (!webhook?.state) return { kind: 'start', webhook: startDelivery(webhookId(job), now) };
  if (webhook.state !== 'pending') return { kind: 'none' };
  if (isDue(webhook, now))
    return { kind: 'deliver', webhook: { ...webhook, id: webhook.id ?? webhookId(job) } };
  return { kind: 'wait', ms: Math.max(1, Date.parse(webhook.nextAttemptAt ?? '') - now) };
}

/**
 * The delivery record after an attempt (see {@link nextDelivery}), with the wait before the
 * next attempt multiplied by `scale`: 1 in production, a small fraction in tests, so the
 * whole Standard Webhooks schedule runs in seconds without a second schedule in the code.
 */
export function recordAttempt(
  webhook: WebhookDeliveryStatus,
  outcome: DeliveryOutcome,
  now: number,
  random: () => number,
  scale = 1,
): WebhookDeliveryStatus {
  const next = nextDelivery(webhook, outcome, now, random);
  if (scale === 1 || next.state !== 'pending' || next.nextAttemptAt === undefined) return next;
  const delay = Math.max(0, Date.parse(next.nextAttemptAt) - now);
  return { ...next, nextAttemptAt: new Date(now + Math.round(delay * scale)).toISOString() };
}

/**
 * Whether `current` still waits for the attempt that was made on `attempted`: nobody has
 * recorded an outcome since. A status write that conflicts is redone on the fresh job only then.
 */
export function awaitsSameAttempt(
  current: WebhookDeliveryStatus | undefined,
  attempted: WebhookDeliveryStatus,
): boolean {
  return (
    current?.state === 'pending' &&
    (current.attempts ?? 0) === (attempted.attempts ?? 0) &&
    (current.id === undefined || current.id === attempted.id)
  );
}

/** Deliveries that failed at least once and wait for a retry (the webhooksPending gauge). */
export function pendingRetries(jobs: Iterable<GenerationJob>): number {
  let n = 0;
  for (const job of jobs) {
    const w = job.status?.webhook;
    if (w?.state === 'pending' && (w.attempts ?? 0) > 0) n++;
  }
  return n;
}
