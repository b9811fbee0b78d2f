import { createHash, randomUUID } from 'node:crypto';
import {
  type Catalog,
  prepareInput,
  price,
  resolveForSubmit,
  resolveVersion,
  type Variant,
} from '../../catalog/index.ts';
import { AppError } from '../../errors.ts';
import { labelValue } from '../../jobs/labels.ts';
import { phaseOf } from '../../jobs/record.ts';
import { isAlreadyExists, isConflict } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { LedgerResult } from '../../ledger/ops.ts';
import type { TargetPolicy } from '../../webhooks/address.ts';
import type { Principal } from '../request.ts';
import { type ListQuery, listPage } from './list.ts';
import { checkWebhookUrl } from './webhook-url.ts';

export interface JobServiceOptions {
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  ledger: Ledger;
  catalog: () => Catalog;
  plans: Record<string, number>;
  /** Which webhook targets are allowed (the controller applies the same policy at delivery). */
  webhookPolicy?: TargetPolicy;
  /** Completion estimates; without it, the catalog's typical run time and the queue length. */
  eta?: EtaSource;
  now?: () => number;
  onSubmitted?: (model: string, costMicroCents: number) => void;
  onCancelled?: (model: string, refundedMicroCents: number) => void;
}

export interface SubmitCommand {
  model: string;
  version?: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
  idempotencyKey?: string;
  requestId: string;
}

/** What submit needs of the queue view (queue.ts): a job's completion estimate and run time. */
export interface EtaSource {
  queueFields(job: GenerationJob): { estimatedCompletionTime?: string };
  runSeconds(model: string, typicalSeconds: number): number;
}

/** Idempotency keys hold for this long; after it the same key submits a new job. */
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * Submit, estimate, read, cancel and list jobs. Money moves only through the Ledger, and
 * every state change of a job is a compare-and-swap, so a cancel racing the controller
 * has exactly one winner and the answer agrees with every later read.
 */
export class JobService {
  private readonly o: JobServiceOptions;

  constructor(options: JobServiceOptions) {
    this.o = options;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  estimate(
    principal: Principal,
    model: string,
    version: string | undefined,
    input: Record<string, unknown> | undefined,
  ) {
    const variant = resolveForSubmit(this.o.catalog(), model, principal.account);
    resolveVersion(variant.model, version);
    // An estimate may carry partial input (no prompt yet): price() fills defaults and
    // refuses only values it cannot price.
    return price(variant, input ?? {}, principal.account.spec.discount);
  }

  async submit(principal: Principal, cmd: SubmitCommand) {
    const account = principal.account;
    const variant = resolveForSubmit(this.o.catalog(), cmd.model, account);
    const version = resolveVersion(variant.model, cmd.version);
    const input = prepareInput(variant, cmd.input);
    if (cmd.webhookUrl !== undefined) checkWebhookUrl(cmd.webhookUrl, this.o.webhookPolicy ?? {});
    const cost = price(variant, input, account.spec.discount).estimatedCostMicroCents;
    const accountName = account.metadata.name ?? '';

    const bodyHash = sha256(JSON.stringify([variant.slug, version, input, cmd.webhookUrl ?? null]));
    let jobId: string = randomUUID();
    if (cmd.idempotencyKey !== undefined) {
      jobId = uuidFrom(sha256(`${accountName}\n${cmd.idempotencyKey}`));
      const existing = this.o.jobCache.get(jobId) ?? (await this.o.jobs.get(jobId));
      if (existing) {
        const replay = this.replay(existing, accountName, bodyHash);
        if (replay) return replay;
        jobId = randomUUID(); // the key's window has passed: a new job
      }
    }

    const maxConcurrent = this.o.plans[account.spec.plan] ?? 0;
    // The job and its reservation are written at once, so a submit waits for one write, not
    // two in a row. The controller starts a job only once its reservation shows in the
    // Account; a job whose reservation is refused is deleted before the refusal is answered
    // (and one left behind by a crash is removed after the reservation grace).
    // allSettled: the outcome is awaited after the reservation, and never goes unhandled.
    const creating = Promise.allSettled([
      this.o.jobs.create({
        metadata: {
          name: jobId,
          labels: { 'genjobs.io/account': accountName, 'genjobs.io/model': labelValue(variant.slug) },
        },
        spec: {
          account: accountName,
          model: variant.slug,
          version,
          input,
          costMicroCents: cost,
          ...(cmd.webhookUrl ? { webhookUrl: cmd.webhookUrl } : {}),
          ...(cmd.idempotencyKey !== undefined ? { idempotencyKeyHash: bodyHash } : {}),
          requestId: cmd.requestId,
        },
      }),
    ]);
    const reserved = await this.o.ledger.run(accountName, {
      kind: 'reserve',
      jobId,
      cost,
      maxConcurrent,
      // A finished job frees its slot at once, though its settlement is written a moment later.
      finished: (id) => isTerminal(this.o.jobCache.get(id)?.status?.phase),
    });
    const [created] = await creating;
    if (!reserved.ok) {
      // Were this delete lost, the controller removes the job after the reservation grace.
      if (created.status === 'fulfilled')
        await this.o.jobs.delete(jobId, { uid: created.value.metadata.uid }).catch(() => {});
      throw this.refusal(reserved, cost, account.spec.plan, maxConcurrent, variant);
    }

    if (created.status === 'rejected') {
      if (isAlreadyExists(created.reason) && cmd.idempotencyKey !== undefined) {
        // The same key raced us and won: its job holds the (shared) reservation.
        const existing = await this.o.jobs.get(jobId);
        const replay = existing && this.replay(existing, accountName, bodyHash);
        if (replay) return replay;
      }
      // Never charge for a job that does not exist.
      await this.o.ledger.run(accountName, { kind: 'refund', jobId });
      throw new AppError(
        'PUBSUB_PUBLISH_FAILED',
        'the job could not be queued; nothing was charged, please retry',
        { cause: created.reason, retryAfterSeconds: 1 },
      );
    }
    const job = created.value;
    this.o.onSubmitted?.(variant.slug, cost);
    return { ...this.submitResult(job, variant.runtime), duplicate: false };
  }

  /** The answer to a refused reservation: no credit left, or the plan's concurrency reached. */
  private refusal(
    refused: Extract<LedgerResult, { ok: false }>,
    cost: number,
    plan: string,
    maxConcurrent: number,
    variant: Variant,
  ): AppError {
    if (refused.reason === 'INSUFFICIENT_BALANCE') {
      return new AppError(
        'INSUFFICIENT_BALANCE',
        `the job costs ${cost} micro-cents and the balance is ${refused.balance}`,
      );
    }
    const runSeconds =
      this.o.eta?.runSeconds(variant.slug, variant.runtime.typicalSeconds) ?? variant.runtime.typicalSeconds;
    return new AppError(
      'CONCURRENT_JOBS_EXCEEDED',
      `plan ${plan} allows ${maxConcurrent} concurrent jobs and ${refused.active} are running`,
      { retryAfterSeconds: Math.max(1, Math.round(runSeconds / 4)) },
    );
  }

  private replay(existing: GenerationJob, account: string, bodyHash: string) {
    if (existing.spec.account !== account) return undefined;
    const created = Date.parse(existing.metadata.creationTimestamp ?? '');
    if (this.now() - created > IDEMPOTENCY_WINDOW_MS) return undefined;
    if (existing.spec.idempotencyKeyHash !== bodyHash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used with a different request body',
      );
    }
    const variant = this.o.catalog().variantsBySlug.get(existing.spec.model);
    return { ...this.submitResult(existing, variant?.runtime), duplicate: true };
  }

  private submitResult(
    job: GenerationJob,
    runtime: { typicalSeconds: number; maxConcurrency: number } | undefined,
  ) {
    const eta = this.o.eta?.queueFields(job).estimatedCompletionTime ?? this.plainEta(job, runtime);
    return {
      jobId: job.metadata.name ?? '',
      requestId: job.spec.requestId ?? '',
      status: 'pending' as const,
      estimatedCompletionTime: eta,
      costMicroCents: job.spec.costMicroCents,
    };
  }

  /** Without a queue view: the queue ahead drained `maxConcurrency` at a time at the typical run time. */
  private plainEta(
    job: GenerationJob,
    runtime: { typicalSeconds: number; maxConcurrency: number } | undefined,
  ) {
    const queued = this.o.jobCache.countByIndex('pendingModel', labelValue(job.spec.model));
    const run = runtime?.typicalSeconds ?? 60;
    const waves = runtime?.maxConcurrency ? Math.floor(queued / runtime.maxConcurrency) : 0;
    return new Date(this.now() + (waves + 1) * run * 1000).toISOString();
  }

  /** The job, if the caller's account owns it. Reads the cache, then the apiserver (read your own write). */
  async get(principal: Principal, jobId: string): Promise<GenerationJob> {
    const job = this.o.jobCache.get(jobId) ?? (validName(jobId) ? await this.o.jobs.get(jobId) : undefined);
    if (!job) throw new AppError('JOB_NOT_FOUND', `job ${jobId} not found`);
    if (job.spec.account !== principal.account.metadata.name) {
      throw new AppError('UNAUTHORIZED_ACCESS', `this API key has no access to job ${jobId}`);
    }
    return job;
  }

  async cancel(principal: Principal, jobId: string) {
    let job = await this.get(principal, jobId);
    for (let attempt = 0; ; attempt++) {
      const phase = phaseOf(job);
      if (phase !== 'pending') {
        throw new AppError(
          'JOB_CANNOT_BE_CANCELLED',
          `job ${jobId} is ${phase}; only pending jobs can be cancelled`,
        );
      }
      try {
        const now = new Date(this.now()).toISOString();
        job = await this.o.jobs.updateStatus({
          ...job,
          status: {
            ...job.status,
            phase: 'cancelled',
            progress: 0,
            completedAt: now,
            refundedMicroCents: job.spec.costMicroCents,
          },
        });
        break;
      } catch (err) {
        // Someone (the controller starting it, another cancel) wrote first: decide again on fresh state.
        if (!isConflict(err) || attempt >= 10) throw err;
        const fresh = await this.o.jobs.get(jobId);
        if (!fresh) throw new AppError('JOB_NOT_FOUND', `job ${jobId} not found`);
        job = fresh;
      }
    }
    // The refund is idempotent (it removes the reservation); the controller settles it too
    // if this process dies right here.
    await this.o.ledger.run(job.spec.account, { kind: 'refund', jobId });
    this.o.onCancelled?.(job.spec.model, job.spec.costMicroCents);
    return { jobId, status: 'cancelled' as const, refundedMicroCents: job.spec.costMicroCents };
  }

  /** The account's jobs, newest first, a page at a time. */
  list(principal: Principal, q: ListQuery) {
    return listPage(this.o.jobCache.byIndex('account', principal.account.metadata.name ?? ''), q);
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const uuidFrom = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const validName = (s: string) => /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(s);
