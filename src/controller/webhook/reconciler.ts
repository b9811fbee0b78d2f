import type { WebhookSecrets } from '../../accounts/webhook-secret.ts';
import { eraseMode } from '../../jobs/labels.ts';
import { apiMessage, isConflict, isNotFound, statusCode } from '../../k8s/errors.ts';
import { type EventRecorder, jobSubject } from '../../k8s/events.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Account, GenerationJob } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';
import type { TargetPolicy } from '../../webhooks/address.ts';
import { type DeliveryOptions, deliverWebhook, type WebhookMessage } from '../../webhooks/deliver.ts';
import type { DeliveryOutcome, WebhookDeliveryStatus } from '../../webhooks/schedule.ts';
import { awaitsSameAttempt, recordAttempt, webhookEvent, webhookStep } from './decide.ts';

export interface WebhookReconcilerDeps {
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  accountCache: Informer<Account>;
  secrets: WebhookSecrets;
  events: EventRecorder;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** Which targets may be connected to (GENJOBS_WEBHOOK_ALLOW_PRIVATE). */
  policy: TargetPolicy;
  /** Extra CA certificates trusted for receivers (a private CA; tests). */
  ca?: DeliveryOptions['ca'];
  resolve?: DeliveryOptions['resolve'];
  /** Multiplies every wait of the retry schedule (1 in production; tests shrink it). */
  scheduleScale?: number;
  random?: () => number;
  /**
   * Deliveries one account may have under way at once, of the queue's GENJOBS_WEBHOOK_CONCURRENCY:
   * a receiver that stalls each attempt for its whole timeout holds that many slots, not all.
   */
  maxPerAccount: number;
  /** Makes one attempt; the real sender unless a test replaces it. */
  deliver?: (message: WebhookMessage, options: DeliveryOptions) => Promise<DeliveryOutcome>;
}

/** Status writes retried on conflicts before the key is handed back to the queue. */
const MAX_WRITES = 10;
/** When an account's delivery slots are all taken, its next webhook is looked at again this much later. */
const ACCOUNT_BUSY_RETRY_MS = 1_000;

/**
 * Sends the webhook of a finished job (spec 6, DESIGN.md "Webhooks"). The delivery record
 * (id, attempts, next attempt, last result) lives in the job's status, written by
 * compare-and-swap: the job reconciler writes the same status, and a conflict only means
 * re-read and write again. An attempt is made before its outcome is recorded, so a crash
 * in between repeats it with the same `webhook-id` (at least once, never lost); a restarted
 * controller continues from the record.
 */
export class WebhookReconciler {
  private readonly d: WebhookReconcilerDeps;
  /** Deliveries under way per account (maxPerAccount). */
  private readonly busy = new Map<string, number>();
  /** The refusal last said per job (see sayRefused): said once, not at every retry of the key. */
  private readonly refusedSaid = new Map<string, string>();

  constructor(deps: WebhookReconcilerDeps) {
    this.d = deps;
  }

  async reconcile(jobId: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    const cached = d.jobCache.get(jobId);
    if (!cached) {
      this.refusedSaid.delete(jobId);
      return undefined;
    }
    const first = webhookStep(cached, d.now());
    if (first.kind === 'none') return undefined;
    if (first.kind === 'wait') return { requeueAfterMs: first.ms };
    const account = cached.spec.account;
    const held = this.busy.get(account) ?? 0;
    if (held >= d.maxPerAccount) return { requeueAfterMs: ACCOUNT_BUSY_RETRY_MS };
    this.busy.set(account, held + 1);
    try {
      return await this.advance(jobId);
    } finally {
      const left = (this.busy.get(account) ?? 1) - 1;
      if (left > 0) this.busy.set(account, left);
      else this.busy.delete(account);
    }
  }

  /** Takes the next step of the delivery record, read fresh from the apiserver. */
  private async advance(jobId: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    // The cache may not show yet the outcome recorded a moment ago by this very reconciler:
    // decide on a fresh read, so a stale cache never causes a second attempt.
    let job = await d.jobs.get(jobId);
    for (let writes = 0; job; writes++) {
      if (writes >= MAX_WRITES)
        throw new Error(`job ${jobId}: status kept changing under the webhook record`);
      const step = webhookStep(job, d.now());
      switch (step.kind) {
        case 'none':
          return undefined;
        case 'wait':
          return { requeueAfterMs: step.ms };
        case 'start':
          job = await this.write(job, step.webhook);
          continue;
        case 'deliver':
          return this.attempt(job, step.webhook);
      }
    }
    return undefined;
  }

  /** Writes the delivery record; on a conflict returns the fresh job to decide again. */
  private async write(
    job: GenerationJob,
    webhook: WebhookDeliveryStatus,
  ): Promise<GenerationJob | undefined> {
    try {
      return await this.d.jobs.updateStatus({ ...job, status: { ...job.status, webhook } });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isConflict(err)) throw err;
      return this.d.jobs.get(job.metadata.name ?? '');
    }
  }

  /**
   * The account's signing Secret could not be made (a full ResourceQuota on Secrets, a
   * policy): nothing is sent unsigned, so the webhook waits, and the key retries with
   * backoff. A Warning Event on the job says why, once per job and reason, beside the log.
   */
  private sayRefused(job: GenerationJob, err: unknown): void {
    const code = statusCode(err);
    if (code !== 403 && code !== 422) return;
    const jobId = job.metadata.name ?? '';
    const message = `the apiserver refused the Secret that signs account ${job.spec.account}'s webhooks (${code}): ${apiMessage(err)}; the webhook waits and is sent once the Secret can be made`;
    if (this.refusedSaid.get(jobId) === message) return;
    this.refusedSaid.set(jobId, message);
    this.d.log.warn({ jobId, account: job.spec.account }, message);
    void this.d.events.record(jobSubject(job), 'Warning', 'WebhookSecretRefused', message);
  }

  private async attempt(
    job: GenerationJob,
    webhook: WebhookDeliveryStatus,
  ): Promise<HandlerResult | undefined> {
    const d = this.d;
    const jobId = job.metadata.name ?? '';
    const account = job.spec.account;
    const cached = d.accountCache.get(account);
    // Being deleted: its jobs go, and no Secret is made for it again to sign with.
    if (cached && eraseMode(cached)) return undefined;
    const owner = cached?.metadata;
    const secrets = await d.secrets
      .signingSecrets(account, owner && { name: account, uid: owner.uid })
      .catch((err: unknown) => {
        this.sayRefused(job, err);
        throw err;
      });
    this.refusedSaid.delete(jobId);
    const url = job.spec.webhookUrl ?? '';
    const outcome = await (d.deliver ?? deliverWebhook)(
      { url, id: webhook.id ?? '', event: webhookEvent(job), secrets },
      { ...d.policy, now: d.now, ca: d.ca, resolve: d.resolve },
    );
    d.metrics.webhookDeliveries.inc({ result: outcome.kind });
    const now = d.now();
    const next = recordAttempt(webhook, outcome, now, d.random ?? Math.random, d.scheduleScale);

    let current: GenerationJob | undefined = job;
    for (let writes = 1; ; writes++) {
      try {
        await d.jobs.updateStatus({ ...current, status: { ...current.status, webhook: next } });
        break;
      } catch (err) {
        // Deleted while its delivery was in flight (an erased account, a delete by hand): no
        // record to keep.
        if (isNotFound(err)) return undefined;
        if (!isConflict(err) || writes >= MAX_WRITES) throw err;
        current = await d.jobs.get(jobId);
        // Someone recorded an outcome since (the other replica before a hand-over): theirs stands.
        if (!current || !awaitsSameAttempt(current.status?.webhook, webhook)) return undefined;
      }
    }

    const log = { jobId, webhookId: next.id, attempts: next.attempts, result: next.lastResult };
    const subject = jobSubject(job);
    const host = URL.canParse(url) ? new URL(url).host : 'the webhook target';
    if (next.state === 'delivered') {
      d.log.info(log, 'webhook delivered');
      void d.events.record(
        subject,
        'Normal',
        'WebhookDelivered',
        `delivered to ${host} after ${next.attempts} attempt(s)`,
      );
      return undefined;
    }
    if (next.state === 'failed') {
      d.metrics.webhooksGivenUp.inc({ result: outcome.kind });
      d.log.warn(log, 'webhook given up');
      void d.events.record(
        subject,
        'Warning',
        'WebhookFailed',
        `gave up on ${host} after ${next.attempts} attempt(s): ${next.lastResult}`,
      );
      return undefined;
    }
    d.log.info({ ...log, nextAttemptAt: next.nextAttemptAt }, 'webhook attempt failed; will retry');
    return { requeueAfterMs: Math.max(1, Date.parse(next.nextAttemptAt ?? '') - now) };
  }
}
