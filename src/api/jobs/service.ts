import { createHash, randomUUID } from 'node:crypto';
import type { ArchiveStore } from '../../archive/store.ts';
import {
  type Catalog,
  prepareInput,
  price,
  resolveForSubmit,
  resolveVersion,
  type Variant,
} from '../../catalog/index.ts';
import { preparePartialInput } from '../../catalog/partial-input.ts';
import { AppError } from '../../errors.ts';
import { DurationEstimator } from '../../jobs/eta.ts';
import { labelValue } from '../../jobs/labels.ts';
import { phaseOf } from '../../jobs/record.ts';
import { ApiserverUnavailable, isAlreadyExists, isConflict } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import { holdsReservation, type LedgerResult } from '../../ledger/ops.ts';
import type { TargetPolicy } from '../../webhooks/address.ts';
import type { Principal } from '../request.ts';
import { JobHistory } from './history.ts';
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
  eta?: DurationEstimator;
  now?: () => number;
  onSubmitted?: (model: string, costMicroCents: number) => void;
  onCancelled?: (model: string, refundedMicroCents: number) => void;
  /** The job history: finished jobs no longer live are read from it (none: no history). */
  archive?: ArchiveStore;
}

export interface SubmitCommand {
  model: string;
  version?: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
  idempotencyKey?: string;
  requestId: string;
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
  private readonly eta: DurationEstimator;
  private readonly history: JobHistory;

  constructor(options: JobServiceOptions) {
    this.o = options;
    this.eta = options.eta ?? new DurationEstimator();
    this.history = new JobHistory(options.archive);
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /**
   * What submit would charge for this input. The input is checked exactly as submit checks
   * it (a value submit refuses is the same 422 here), except that required fields may be
   * missing: a client prices a job before it has a prompt, and missing fields are priced at
   * their defaults, as submit fills them in.
   */
  estimate(
    principal: Principal,
    model: string,
    version: string | undefined,
    input: Record<string, unknown> | undefined,
  ) {
    const catalog = this.o.catalog();
    const variant = resolveForSubmit(catalog, model, principal.account);
    resolveVersion(variant.model, version);
    const prepared = preparePartialInput(catalog, variant, input ?? {});
    return price(variant, prepared, principal.account.spec.discount);
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
      // Cache, apiserver, then the archive: the archiver upserts before it deletes, so a
      // key's job is always in one of them within the window, and never submitted twice.
      const existing =
        this.o.jobCache.get(jobId) ?? (await this.o.jobs.get(jobId)) ?? (await this.history.exists(jobId));
      if (existing) {
        const replay = this.replay(existing, accountName, bodyHash);
        if (replay) {
          await this.ensureReserved(principal, existing, variant);
          return replay;
        }
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
      if (created.reason instanceof ApiserverUnavailable && cmd.idempotencyKey !== undefined) {
        // The write's outcome is unknown: the job may still land. The reservation stays, so a
        // retry with the same key finds the job holding it, or creates it under the same id
        // and reuses it; a reservation whose job never appears is refunded after the grace.
        throw new AppError(
          'UNAVAILABLE',
          'the job could not be confirmed in time; retry with the same Idempotency-Key',
          { cause: created.reason, retryAfterSeconds: created.reason.retryAfterSeconds },
        );
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

  /**
   * Makes sure a replayed job holds its reservation. The first submit's reservation write
   * may have timed out (or been undone) while its job write landed; answering 200 for that
   * job would promise a job the controller removes for want of credit. The Account is read
   * before the job, so a reservation missing from it was never settled (see
   * {@link Ledger.reserveOn}).
   */
  private async ensureReserved(principal: Principal, job: GenerationJob, variant: Variant): Promise<void> {
    const jobId = job.metadata.name ?? '';
    const name = job.spec.account;
    if (holdsReservation(principal.account, jobId) || isTerminal(job.status?.phase)) return;
    const maxConcurrent = this.o.plans[principal.account.spec.plan] ?? 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const account = await this.o.ledger.read(name);
      if (!account || holdsReservation(account, jobId)) return;
      const fresh = await this.o.jobs.get(jobId);
      if (!fresh) break; // removed for want of credit: a retry with the key makes it anew
      if (phaseOf(fresh) !== 'pending' || (fresh.status?.attempts ?? 0) > 0) return;
      const cost = fresh.spec.costMicroCents;
      const finished = (id: string) => isTerminal(this.o.jobCache.get(id)?.status?.phase);
      const r = await this.o.ledger.reserveOn(account, {
        kind: 'reserve',
        jobId,
        cost,
        maxConcurrent,
        finished,
      });
      if (r?.ok) return;
      if (r) throw this.refusal(r, cost, principal.account.spec.plan, maxConcurrent, variant);
    }
    throw new AppError('UNAVAILABLE', 'the job is not confirmed yet; retry with the same Idempotency-Key', {
      retryAfterSeconds: 1,
    });
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
    const runSeconds = this.eta.runSeconds(variant.slug, variant.runtime.typicalSeconds);
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
    const model = job.spec.model;
    const queued = this.o.jobCache.countByIndex('pendingModel', labelValue(model));
    const eta = this.eta.completionTime(
      model,
      runtime?.typicalSeconds ?? 60,
      queued,
      runtime?.maxConcurrency ?? 1,
      this.now(),
    );
    return {
      jobId: job.metadata.name ?? '',
      requestId: job.spec.requestId ?? '',
      status: 'pending' as const,
      estimatedCompletionTime: eta.toISOString(),
      costMicroCents: job.spec.costMicroCents,
    };
  }

  /**
   * The job, if the caller's account owns it: from the cache, else the archive, else the
   * apiserver (read your own write: a job created a moment ago may not be cached yet).
   */
  async get(principal: Principal, jobId: string): Promise<GenerationJob> {
    const job = this.o.jobCache.get(jobId) ?? (validName(jobId) ? await this.uncached(jobId) : undefined);
    if (!job) throw new AppError('JOB_NOT_FOUND', `job ${jobId} not found`);
    if (job.spec.account !== principal.account.metadata.name) {
      throw new AppError('UNAUTHORIZED_ACCESS', `this API key has no access to job ${jobId}`);
    }
    return job;
  }

  /**
   * A job the cache does not show. The archive first, so reading history costs no apiserver
   * call: a job missing from the cache is either new (not archived for minutes yet) or
   * deleted, and the archiver deletes only what it archived. An archive that cannot answer
   * does not hide a live job: the apiserver decides, and only a job it lacks is a 503.
   */
  private async uncached(jobId: string): Promise<GenerationJob | undefined> {
    const archived = await this.history.get(jobId).then(
      (job) => ({ job }),
      (err: unknown) => ({ job: undefined, err }),
    );
    if (archived.job) return archived.job;
    const live = await this.o.jobs.get(jobId);
    if (!live && 'err' in archived) throw archived.err;
    return live;
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

  /** The account's jobs, live and archived, newest first, a page at a time. */
  async list(principal: Principal, q: ListQuery) {
    const account = principal.account.metadata.name ?? '';
    // Live first, then the archive: a job archived and deleted between the two reads is then
    // in the second (it was upserted before the delete), never in neither.
    const live = this.o.jobCache.byIndex('account', account);
    return listPage(live, q, await this.history.page(account, q));
  }

  /** Feeds observed run times of finished jobs into the completion estimate. */
  observe(job: GenerationJob): void {
    const s = job.status;
    if (s?.phase === 'completed' && s.startedAt && s.completedAt) {
      this.eta.observe(job.spec.model, (Date.parse(s.completedAt) - Date.parse(s.startedAt)) / 1000);
    }
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const uuidFrom = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const validName = (s: string) => /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(s);
