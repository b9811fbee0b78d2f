import { createHash, randomUUID } from 'node:crypto';
import stableJson from 'safe-stable-stringify';
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
import { AppError, httpStatus } from '../../errors.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../jobs/idempotency.ts';
import {
  ACCOUNT_LABEL,
  API_KEY_LABEL,
  labelValue,
  MODEL_LABEL,
  SUBMITTED_AT_ANNOTATION,
} from '../../jobs/labels.ts';
import { type JobRecord, phaseOf } from '../../jobs/record.ts';
import { ApiserverUnavailable, isAlreadyExists, isConflict, statusCode } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Account, GenerationJob } from '../../k8s/types.ts';
import type { CreditLeases, Draw } from '../../ledger/credit-leases.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { Money } from '../../ledger/money.ts';
import type { TargetPolicy } from '../../webhooks/address.ts';
import { liveJobsExceeded } from '../limits/limits.ts';
import { knownError } from '../problem.ts';
import { owns, type Principal } from '../request.ts';
import { JobHistory } from './history.ts';
import { type ListQuery, listPage, newestLive } from './list.ts';
import type { PlanGate } from './plan-gate.ts';
import { checkWebhookUrl } from './webhook-url.ts';

export interface JobServiceOptions {
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  ledger: Ledger;
  /** This replica's credit leases: submits draw from them and write only the job. */
  leases: CreditLeases;
  /** Where a job's money is held (a cancel refunds it from there). */
  money: Money;
  catalog: () => Catalog;
  plans: Record<string, number>;
  /** Unfinished jobs an account may have at once (GENJOBS_MAX_LIVE_JOBS; 0 or absent: no cap but the plan's). */
  maxLiveJobs?: number;
  /** The accounts' unfinished jobs, this process's own writes included (the live-jobs cap reads it too). */
  gate: PlanGate;
  /** Seconds until the account's first unfinished job should end (QueueView.firstFinishIn). */
  firstFinishIn: (account: string) => number | undefined;
  /** Which webhook targets are allowed (the controller applies the same policy at delivery). */
  webhookPolicy?: TargetPolicy;
  /** Completion estimates and queue positions (queue.ts). */
  eta: EtaSource;
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

/** What the service needs of the queue view (queue.ts): estimates, run times, a job's record. */
export interface EtaSource {
  queueFields(job: GenerationJob): { estimatedCompletionTime?: string };
  runSeconds(model: string, typicalSeconds: number): number;
  /** The GET record of a job, with its queue position and estimate while it is unfinished. */
  record(job: GenerationJob): JobRecord;
}

/**
 * Links of an Idempotency-Key's id chain looked up before giving up on it: one per window of
 * reuse, far more than a retention of jobs (30 days by default) keeps.
 */
const MAX_KEY_CHAIN = 100;

/**
 * Submit, estimate, read, cancel and list jobs. Money moves only through the Ledger, and
 * every state change of a job is a compare-and-swap, so a cancel racing the controller
 * has exactly one winner and the answer agrees with every later read.
 */
export class JobService {
  private readonly o: JobServiceOptions;
  private readonly gate: PlanGate;
  private readonly history: JobHistory;
  /** The last submit in flight per account and Idempotency-Key (see {@link submit}). */
  private readonly keyedSubmits = new Map<string, Promise<unknown>>();

  constructor(options: JobServiceOptions) {
    this.o = options;
    this.gate = options.gate;
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

  /**
   * Submits with one Idempotency-Key run one at a time in this replica: one that waited finds
   * the job the first made and replays it. Racing, the second would draw the same money first
   * and, on a balance for one job, be told 402 about a job that exists. One that waited for
   * a submit the apiserver did not answer in time (a 503) is answered the same at once: it
   * would wait out its own deadline for the same reason, and the retries behind it theirs.
   */
  async submit(principal: Principal, cmd: SubmitCommand) {
    if (cmd.idempotencyKey === undefined) return this.submitNow(principal, cmd);
    const key = `${principal.account.metadata.uid ?? principal.account.metadata.name}\n${cmd.idempotencyKey}`;
    const before = this.keyedSubmits.get(key);
    const mine = (before ?? Promise.resolve()).then(
      () => this.submitNow(principal, cmd),
      (err: unknown) => {
        if (err instanceof AppError && httpStatus(err.code) === 503) throw err;
        return this.submitNow(principal, cmd);
      },
    );
    this.keyedSubmits.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.keyedSubmits.get(key) === mine) this.keyedSubmits.delete(key);
    }
  }

  private async submitNow(principal: Principal, cmd: SubmitCommand) {
    const account = principal.account;
    const accountName = account.metadata.name ?? '';
    let variant: ReturnType<typeof resolveForSubmit>;
    let version: string;
    try {
      variant = resolveForSubmit(this.o.catalog(), cmd.model, account);
      version = resolveVersion(variant.model, cmd.version);
    } catch (err) {
      // The catalog may have changed since the key's job was made (its model or version
      // removed): a retry must still find that job, not be told it cannot exist.
      const earlier =
        err instanceof AppError && cmd.idempotencyKey !== undefined
          ? await this.replayOfModel(principal, cmd.idempotencyKey, cmd.model).catch((e: unknown) => {
              throw notQueued(e);
            })
          : undefined;
      if (earlier) return earlier;
      throw err;
    }
    const input = prepareInput(variant, cmd.input);
    const webhookUrl =
      cmd.webhookUrl === undefined ? undefined : checkWebhookUrl(cmd.webhookUrl, this.o.webhookPolicy ?? {});
    const cost = price(variant, input, account.spec.discount).estimatedCostMicroCents;

    // Keys sorted: the same request from a client that orders its fields otherwise is the same body.
    const bodyHash = sha256(stableJson([variant.slug, version, input, webhookUrl ?? null]) ?? '');
    let jobId: string = randomUUID();
    if (cmd.idempotencyKey !== undefined) {
      const found = await this.keyedJob(principal, cmd.idempotencyKey, bodyHash).catch((err: unknown) => {
        throw notQueued(err);
      });
      if ('replay' in found) return found.replay;
      jobId = found.jobId;
    }

    const maxConcurrent = this.o.plans[account.spec.plan] ?? 0;
    if (maxConcurrent === 0) throw this.noJobs(account.spec.plan);
    // Refusals come before the create: the api may not delete jobs (the chart's Role), and a
    // job left behind by a refusal would answer a replay of its key without holding money.
    // The plan's slot first, then the money: a submit past the plan never draws, so a burst
    // past it cannot hold the credit its submits within the plan need (they were told 402,
    // which is not retryable, with credit left); a submit waiting for a lease holds its slot
    // meanwhile. The live-jobs cap (GENJOBS_MAX_LIVE_JOBS) is checked again here, with the
    // plan's, in the same step that takes the slot: the request's early check ran before,
    // so a burst of submits had all passed it before any of them entered. A free job (a 100%
    // discount) holds no money and draws from no lease.
    const liveCap = this.o.maxLiveJobs ?? 0;
    const cap = liveCap > 0 ? Math.min(maxConcurrent, liveCap) : maxConcurrent;
    const slot = this.gate.enter(accountName, jobId, cap);
    if (!slot.ok) {
      throw cap < maxConcurrent
        ? liveJobsExceeded(slot.active, this.o.firstFinishIn(accountName) ?? 30)
        : this.busy(accountName, slot.active, account.spec.plan, maxConcurrent, variant);
    }
    let draw: Draw | undefined;
    try {
      draw = cost === 0 ? undefined : await this.o.leases.draw(accountName, cost);
    } catch (err) {
      this.gate.leave(accountName, jobId);
      throw notQueued(err);
    }
    let job: GenerationJob;
    try {
      job = await this.o.jobs.create({
        metadata: {
          name: jobId,
          labels: {
            [ACCOUNT_LABEL]: accountName,
            [MODEL_LABEL]: labelValue(variant.slug),
            [API_KEY_LABEL]: principal.key.metadata.name ?? '',
          },
          annotations: { [SUBMITTED_AT_ANNOTATION]: new Date(this.now()).toISOString() },
        },
        spec: {
          account: accountName,
          model: variant.slug,
          version,
          input,
          costMicroCents: cost,
          ...(draw ? { lease: draw.lease } : {}),
          ...(webhookUrl ? { webhookUrl } : {}),
          ...(cmd.idempotencyKey !== undefined ? { idempotencyKeyHash: bodyHash } : {}),
          requestId: cmd.requestId,
        },
      });
    } catch (err) {
      // A refused create cannot land later: its money goes back to the lease. Anything
      // else (a timeout, a lost connection) may still have created the job, so it stays drawn.
      draw?.done(isRefused(err) ? 'absent' : 'unknown');
      this.gate.leave(accountName, jobId);
      if (isAlreadyExists(err) && cmd.idempotencyKey !== undefined) {
        // The same key raced us and won; its job holds its own money, at its own price.
        const existing = await this.o.jobs.get(jobId);
        const replay = existing && this.replay(existing, principal, bodyHash);
        if (replay) return replay;
      }
      if (!isRefused(err)) {
        // The write's outcome is unknown (a deadline passed, the connection dropped): the job
        // may still land, holding the money it drew. A retry with the same key finds it, or
        // creates it under the same id; a draw no job names returns when its lease closes.
        throw new AppError(
          'UNAVAILABLE',
          cmd.idempotencyKey !== undefined
            ? 'the job could not be confirmed in time; retry with the same Idempotency-Key'
            : 'the job could not be confirmed in time; list your jobs before submitting it again',
          {
            cause: err,
            retryAfterSeconds: err instanceof ApiserverUnavailable ? err.retryAfterSeconds : 1,
            // Without a key, sending it again may make a second job: a client that retries
            // what is retryable must not (it lists the jobs first, as the message says).
            ...(cmd.idempotencyKey === undefined ? { retryable: false } : {}),
          },
        );
      }
      throw notQueuedError(err, 1);
    }
    draw?.done('created');
    this.gate.created(job);
    this.o.onSubmitted?.(variant.slug, cost);
    return { ...this.submitResult(job), duplicate: false };
  }

  /**
   * The job an Idempotency-Key made, for a request the catalog no longer resolves: its body
   * cannot be hashed as it was, so the job answers the replay when it is of the model asked
   * for (otherwise the request's own refusal stands).
   */
  private async replayOfModel(principal: Principal, key: string, model: string) {
    let jobId = firstKeyedJobId(principal.account, key);
    for (let link = 0; link < MAX_KEY_CHAIN; link++) {
      const existing = await this.keyedCandidate(jobId);
      if (!existing) return undefined;
      if (this.replay(existing, principal, existing.spec.idempotencyKeyHash ?? '')) {
        return existing.spec.model === model
          ? { ...this.submitResult(existing), duplicate: true }
          : undefined;
      }
      jobId = nextKeyedJobId(jobId);
    }
    return undefined;
  }

  private async keyedCandidate(jobId: string): Promise<GenerationJob | undefined> {
    return this.o.jobCache.get(jobId) ?? (await this.o.jobs.get(jobId)) ?? (await this.history.exists(jobId));
  }

  /**
   * The job an Idempotency-Key stands for: a replay of it, or the id a new one takes. The
   * ids are a chain derived from the account and the key: the first, then, once the job
   * there is past the key's window (or a deleted namesake's, see {@link owns}), the next one
   * derived from it, and so on. So a client
   * that retries a key older than the window gets one new job, not one per retry. Each link
   * is looked up in the cache, the apiserver, then the archive: the archiver upserts before
   * it deletes, so within the window a key's job is always in one of them.
   */
  private async keyedJob(
    principal: Principal,
    key: string,
    bodyHash: string,
  ): Promise<{ replay: NonNullable<ReturnType<JobService['replay']>> } | { jobId: string }> {
    let jobId = firstKeyedJobId(principal.account, key);
    for (let link = 0; link < MAX_KEY_CHAIN; link++) {
      const existing = await this.keyedCandidate(jobId);
      if (!existing) return { jobId };
      const replay = this.replay(existing, principal, bodyHash);
      if (replay) return { replay };
      jobId = nextKeyedJobId(jobId);
    }
    // Kept longer than retention allows (rows older than it are deleted, and their ids free).
    return { jobId: randomUUID() };
  }

  /**
   * A plan that allows no jobs (not one of GENJOBS_PLANS, or set to 0): waiting would not
   * help, so not CONCURRENT_JOBS_EXCEEDED, whose retries would never end.
   */
  private noJobs(plan: string): AppError {
    const known = Object.entries(this.o.plans)
      .filter(([, n]) => n > 0)
      .map(([p]) => p);
    return new AppError(
      'UNAUTHORIZED_ACCESS',
      plan in this.o.plans
        ? `the account's plan ${plan} allows no jobs; an operator can move it to another plan`
        : `the account's plan ${plan} is not one this service has (${known.join(', ')}), so it may run no jobs; an operator must set a known plan`,
    );
  }

  /**
   * The plan's limit refusal. Retry-After is when the first of the account's unfinished jobs
   * should end; without an estimate (jobs not cached yet, variants paused), a quarter of a
   * run of the variant asked for.
   */
  private busy(account: string, active: number, plan: string, maxConcurrent: number, variant: Variant) {
    // Undefined only while the cache has not seen the account's jobs (just submitted).
    const retryAfterSeconds =
      this.o.firstFinishIn(account) ??
      Math.max(1, Math.round(this.o.eta.runSeconds(variant.slug, variant.runtime.typicalSeconds) / 4));
    return new AppError(
      'CONCURRENT_JOBS_EXCEEDED',
      `plan ${plan} allows ${maxConcurrent} concurrent jobs and the account has ${active} not finished (waiting or running); try again in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }

  private replay(existing: GenerationJob, principal: Principal, bodyHash: string) {
    if (!owns(principal, existing.spec.account, existing.metadata.creationTimestamp)) return undefined;
    const created = Date.parse(existing.metadata.creationTimestamp ?? '');
    if (this.now() - created > IDEMPOTENCY_WINDOW_MS) return undefined;
    if (existing.spec.idempotencyKeyHash !== bodyHash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used with a different request body',
      );
    }
    return { ...this.submitResult(existing), duplicate: true };
  }

  private submitResult(job: GenerationJob) {
    // A replay of a finished job has no estimate left: the time it completed is when it did.
    // A job of a paused variant has none either, but this answer must carry one: the soonest
    // it could complete, were it to start now.
    const eta =
      this.o.eta.queueFields(job).estimatedCompletionTime ??
      job.status?.completedAt ??
      new Date(this.now() + this.soonestRunSeconds(job.spec.model) * 1000).toISOString();
    return {
      jobId: job.metadata.name ?? '',
      requestId: job.spec.requestId ?? '',
      status: 'pending' as const,
      estimatedCompletionTime: eta,
      costMicroCents: job.spec.costMicroCents,
    };
  }

  private soonestRunSeconds(model: string): number {
    try {
      const variant = this.o.catalog().variantsBySlug.get(model);
      return variant ? this.o.eta.runSeconds(model, variant.runtime.typicalSeconds) : 0;
    } catch {
      return 0; // the catalog has not loaded
    }
  }

  /**
   * The job, if the caller's account owns it: from the cache, else the archive, else the
   * apiserver (read your own write: a job created a moment ago may not be cached yet).
   */
  async get(principal: Principal, jobId: string): Promise<GenerationJob> {
    const job =
      this.o.jobCache.get(jobId) ??
      (validName(jobId)
        ? await this.uncached(
            jobId,
            (id) => this.history.get(id),
            (live) => live,
          )
        : undefined);
    if (!job) throw jobNotFound(jobId);
    assertOwner(principal, jobId, job.spec.account, job.metadata.creationTimestamp);
    return job;
  }

  /**
   * {@link get}'s job as GET /v1/jobs/{id} answers it, as JSON text: an archived job's is the
   * record stored beside it, so serving history parses and writes no JSON.
   */
  async recordJson(principal: Principal, jobId: string): Promise<string> {
    const ofLive = (job: GenerationJob) => ({
      account: job.spec.account,
      createdAt: job.metadata.creationTimestamp,
      json: () => JSON.stringify(this.o.eta.record(job)),
    });
    const cached = this.o.jobCache.get(jobId);
    const found = cached
      ? ofLive(cached)
      : validName(jobId)
        ? await this.uncached(
            jobId,
            async (id) => {
              const archived = await this.history.record(id);
              return archived && { ...archived, json: () => archived.record };
            },
            ofLive,
          )
        : undefined;
    if (!found) throw jobNotFound(jobId);
    assertOwner(principal, jobId, found.account, found.createdAt);
    return found.json();
  }

  /**
   * A job the cache does not show, as `archived` or `live` makes it. The archive first, so
   * reading history costs no apiserver call: a job missing from the cache is either new (not
   * archived for minutes yet) or deleted, and the archiver deletes only what it archived. An
   * archive that cannot answer does not hide a live job: the apiserver decides, and only a
   * job it lacks is a 503.
   */
  private async uncached<T>(
    jobId: string,
    archived: (jobId: string) => Promise<T | undefined>,
    live: (job: GenerationJob) => T,
  ): Promise<T | undefined> {
    const fromArchive = await archived(jobId).then(
      (found) => ({ found }),
      (err: unknown) => ({ found: undefined, err }),
    );
    if (fromArchive.found) return fromArchive.found;
    const job = await this.o.jobs.get(jobId);
    if (!job && 'err' in fromArchive) throw fromArchive.err;
    return job && live(job);
  }

  async cancel(principal: Principal, jobId: string) {
    let job = await this.get(principal, jobId);
    for (let attempt = 0; ; attempt++) {
      const phase = phaseOf(job);
      if (phase !== 'pending') {
        // A job's status is what check_status reads: a key without it learns only that
        // the job is past pending, which the refusal itself says.
        const seen = principal.key.spec.scopes.includes('check_status');
        throw new AppError(
          'JOB_CANNOT_BE_CANCELLED',
          `job ${jobId} is ${seen ? phase : 'no longer pending'}; only pending jobs can be cancelled`,
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
        if (!fresh) throw jobNotFound(jobId);
        job = fresh;
      }
    }
    this.gate.end(job.spec.account, jobId);
    // Idempotent (a lease records what it refunded, a reservation is removed): the
    // controller settles it too if this process dies right here.
    const held = this.o.money.holding(job);
    if (held === 'lease' || held === 'reservation') {
      const lease =
        held === 'lease' ? { id: job.spec.lease ?? '', cost: job.spec.costMicroCents } : undefined;
      await this.o.ledger.run(job.spec.account, { kind: 'refund', jobId, ...(lease ? { lease } : {}) });
    }
    this.o.onCancelled?.(job.spec.model, job.spec.costMicroCents);
    return { jobId, status: 'cancelled' as const, refundedMicroCents: job.spec.costMicroCents };
  }

  /** The account's jobs, live and archived, newest first, a page at a time. */
  async list(principal: Principal, q: ListQuery) {
    const { name = '', creationTimestamp: since = '' } = principal.account.metadata;
    // Live first, then the archive: a job archived and deleted between the two reads is then
    // in the second (it was upserted before the delete), never in neither. Neither shows a
    // deleted namesake's jobs, made before this account was (see owns).
    // With the jobs created here that the cache does not show yet: a list right after a
    // submit shows its job.
    const live = newestLive(
      chain(this.o.jobCache.eachByIndex('account', name), this.gate.fresh(name)),
      q,
      since,
    );
    const archived = await this.history.page(name, since, q);
    return listPage(live, q, archived, (job) => this.o.eta.record(job));
  }
}

function* chain<T>(...all: Iterable<T>[]): Iterable<T> {
  for (const each of all) yield* each;
}

/** A job id as sent is named back only when it could be one (not 5,000 characters, not a NUL). */
const jobNotFound = (jobId: string) =>
  new AppError('JOB_NOT_FOUND', validName(jobId) ? `job ${jobId} not found` : 'no job has this id');

/** Refuses a job of another account than the caller's (or of a deleted one of its name, see {@link owns}). */
function assertOwner(
  principal: Principal,
  jobId: string,
  account: string,
  createdAt: string | undefined,
): void {
  if (!owns(principal, account, createdAt)) {
    throw new AppError('UNAUTHORIZED_ACCESS', `this API key has no access to job ${jobId}`);
  }
}

/** A create the apiserver refused (4xx): the job does not exist and never will from this request. */
const isRefused = (err: unknown) => {
  const code = statusCode(err) ?? 0;
  return code >= 400 && code < 500 && code !== 408;
};
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const uuidFrom = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
/**
 * The first id of an Idempotency-Key's chain (JobService.keyedJob), derived from the
 * account's uid, which no other account can know: from its name, anyone could compute the
 * id of a key's job and tell from a GET (403, not 404) whether the account had used the key.
 * An account made again under a deleted one's name has a chain of its own.
 */
export const firstKeyedJobId = (account: Account, key: string) =>
  uuidFrom(sha256(`${account.metadata.uid ?? account.metadata.name ?? ''}\n${key}`));
/** The id after `id` in an Idempotency-Key's chain. */
export const nextKeyedJobId = (id: string) => uuidFrom(sha256(`${id}\nnext`));
const validName = (s: string) => /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(s);

/**
 * A submit that could not go on before the job's create was sent (its key's job could not
 * be looked up, in the apiserver or the archive; no credit lease could be written or had
 * room in time): nothing was queued, so it answers the spec's code for a job that could not
 * be queued (4.1, "the caller should retry"). Refusals (402, 409) and bugs go as they are.
 */
function notQueued(err: unknown): unknown {
  const known = knownError(err);
  return known?.code === 'UNAVAILABLE' ? notQueuedError(err, known.retryAfterSeconds ?? 1) : err;
}

/** The answer to a submit that queued nothing; its cause goes to the log with the request id. */
function notQueuedError(cause: unknown, retryAfterSeconds: number): AppError {
  return new AppError(
    'PUBSUB_PUBLISH_FAILED',
    'the job could not be queued; nothing was charged, please retry',
    {
      cause,
      retryAfterSeconds,
    },
  );
}
