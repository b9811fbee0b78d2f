import { labelValue } from '../../jobs/labels.ts';
import { phaseOf } from '../../jobs/record.ts';
import type { Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

const UNFINISHED = 'admission:unfinished-by-model';
const BY_ACCOUNT = 'admission:unfinished-by-account';

/**
 * Decides which waiting jobs may start: per model variant, at most its runtime's
 * `maxConcurrency` jobs hold a Pod, and waiting jobs start oldest first. The cache may
 * lag behind the Pods this controller just created, so starts are also remembered here
 * until the cache shows them; only the leader admits, so this memory is the only writer.
 */
export class Admission {
  private readonly jobs: Informer<GenerationJob>;
  /** Jobs started by this process, by model, until the cache shows them started or finished. */
  private readonly started = new Map<string, Set<string>>();
  private readonly eligible: (job: GenerationJob) => boolean;
  private readonly hasPod: (job: GenerationJob) => boolean;
  private readonly accountMax: (account: string) => number;

  /**
   * `eligible`: whether a waiting job may take a slot at all (its reservation shows);
   * others do not queue. `hasPod`: whether the Pod cache holds a Pod of the job (the
   * first attempt's Pod was created before any status named it). `accountMax`: the plan's
   * concurrency of an account: the api checks it from its cache, so several replicas can
   * accept a few more; the excess waits here.
   */
  constructor(
    jobs: Informer<GenerationJob>,
    opts: {
      eligible?: (job: GenerationJob) => boolean;
      hasPod?: (job: GenerationJob) => boolean;
      accountMax?: (account: string) => number;
    } = {},
  ) {
    this.jobs = jobs;
    this.eligible = opts.eligible ?? (() => true);
    this.hasPod = opts.hasPod ?? (() => false);
    this.accountMax = opts.accountMax ?? (() => Number.POSITIVE_INFINITY);
    // Finished jobs stay cached until their TTL: a snapshot looks at unfinished ones only.
    jobs.addIndex(UNFINISHED, (j) => (isTerminal(phaseOf(j)) ? [] : [labelValue(j.spec.model)]));
    jobs.addIndex(BY_ACCOUNT, (j) => (isTerminal(phaseOf(j)) ? [] : [j.spec.account]));
  }

  /** Whether the account's running jobs (or ones this process is starting) reach its plan. */
  private accountFull(account: string, memo: Map<string, boolean>): boolean {
    const known = memo.get(account);
    if (known !== undefined) return known;
    const max = this.accountMax(account);
    let running = 0;
    if (Number.isFinite(max)) {
      for (const j of this.jobs.byIndex(BY_ACCOUNT, account)) {
        if (this.holdsSlot(j) || this.started.get(j.spec.model)?.has(j.metadata.name ?? '')) running++;
      }
    }
    const full = running >= max;
    memo.set(account, full);
    return full;
  }

  private holdsSlot(j: GenerationJob): boolean {
    return (j.status?.attempts ?? 0) > 0 || this.hasPod(j);
  }

  /**
   * The jobs of a model, split into those holding a slot and those waiting (in no order:
   * a decision needs a count or the few oldest, never the whole backlog sorted).
   */
  private snapshot(model: string) {
    const mine = this.started.get(model) ?? new Set<string>();
    for (const name of mine) {
      const j = this.jobs.get(name);
      // Forgotten once the caches show the start (or the end, or the job's deletion).
      if (!j || isTerminal(phaseOf(j)) || this.holdsSlot(j)) mine.delete(name);
    }
    const active = new Set<string>(mine);
    const waiting: GenerationJob[] = [];
    const full = new Map<string, boolean>();
    for (const j of this.jobs.byIndex(UNFINISHED, labelValue(model))) {
      if (j.spec.model !== model) continue;
      if (this.holdsSlot(j)) active.add(j.metadata.name ?? '');
      else if (
        !active.has(j.metadata.name ?? '') &&
        this.eligible(j) &&
        !this.accountFull(j.spec.account, full)
      )
        waiting.push(j);
    }
    return { active, waiting };
  }

  /** Whether this process started the job and the caches do not show it yet. */
  starting(job: GenerationJob): boolean {
    return !this.holdsSlot(job) && (this.started.get(job.spec.model)?.has(job.metadata.name ?? '') ?? false);
  }

  /** Whether the job may start now: fewer waiting jobs are older than it than slots are free. */
  admits(job: GenerationJob, maxConcurrency: number): boolean {
    const { active, waiting } = this.snapshot(job.spec.model);
    const free = maxConcurrency - active.size;
    const name = job.metadata.name;
    if (free <= 0 || !waiting.some((w) => w.metadata.name === name)) return false;
    let older = 0;
    for (const w of waiting) if (oldestFirst(w, job) < 0 && ++older >= free) return false;
    return true;
  }

  markStarted(job: GenerationJob): void {
    const set = this.started.get(job.spec.model) ?? new Set<string>();
    set.add(job.metadata.name ?? '');
    this.started.set(job.spec.model, set);
  }

  /** Forgets a start that did not happen (Pod creation failed). */
  unmark(job: GenerationJob): void {
    this.started.get(job.spec.model)?.delete(job.metadata.name ?? '');
  }

  /**
   * The models whose waiting jobs may start now that the cache shows `job` finished or
   * deleted: its own model (a slot freed) and every model its account has jobs of (room
   * under the plan freed). Called from the cache's event, whoever wrote the change: a
   * look computed when this process's own write returns may come before the cache shows
   * it, count the slot as still taken, and start nothing; were that the last job of the
   * model to end, its waiting jobs would wait until their queue timeout (a day).
   */
  freedBy(job: GenerationJob): string[] {
    const models = new Set([job.spec.model]);
    for (const j of this.jobs.byIndex(BY_ACCOUNT, job.spec.account)) models.add(j.spec.model);
    return [...models];
  }

  /**
   * How a model's slots are used, for diagnostics: jobs holding one (this process's own
   * starts among them) and jobs waiting that may take one. Free slots with jobs waiting
   * mean no one has looked at the waiting jobs since the slots freed.
   */
  state(
    model: string,
    maxConcurrency: number,
  ): { slots: number; holding: number; starting: number; waiting: number } {
    const { active, waiting } = this.snapshot(model);
    return {
      slots: maxConcurrency,
      holding: active.size,
      starting: this.started.get(model)?.size ?? 0,
      waiting: waiting.length,
    };
  }

  /** The waiting jobs that would get the free slots of a model: the ones worth reconciling. */
  next(model: string, maxConcurrency: number): string[] {
    const { active, waiting } = this.snapshot(model);
    return oldest(waiting, maxConcurrency - active.size).map((j) => j.metadata.name ?? '');
  }
}

/** The `k` oldest jobs, oldest first, in one pass (k is a model's free slots: small). */
function oldest(jobs: readonly GenerationJob[], k: number): GenerationJob[] {
  const picked: GenerationJob[] = [];
  if (k <= 0) return picked;
  for (const j of jobs) {
    if (picked.length === k && oldestFirst(j, picked[k - 1]!) >= 0) continue;
    const at = picked.findIndex((p) => oldestFirst(j, p) < 0);
    picked.splice(at < 0 ? picked.length : at, 0, j);
    if (picked.length > k) picked.pop();
  }
  return picked;
}

function oldestFirst(a: GenerationJob, b: GenerationJob): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}
