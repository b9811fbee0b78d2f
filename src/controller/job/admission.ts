import { AdmissionQueue, FairQueue, type Queued, queuedOf } from '../../jobs/order.ts';
import { phaseOf } from '../../jobs/record.ts';
import type { EventType, Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

interface Entry extends Queued {
  account: string;
  model: string;
}

/** One account's unfinished jobs: what its plan counts, and who waits for it. */
interface AccountJobs {
  waiting: AdmissionQueue<Entry>;
  /** Jobs holding a slot, or being started by this process. */
  running: Set<string>;
}

/** One model variant's unfinished jobs: those waiting (accounts take turns) and those holding a slot. */
interface ModelJobs {
  waiting: FairQueue<Entry>;
  holding: Set<string>;
  /** Jobs this process started, until the cache shows them holding a slot or finished. */
  starting: Set<string>;
}

type JobCache = Pick<Informer<GenerationJob>, 'get' | 'on' | 'list'>;

/**
 * A job's hold on its model's slots: waiting for one, holding one (its worker runs or is
 * about to), or done with it (its worker succeeded; the job's end is not written yet).
 */
type SlotState = 'waiting' | 'holding' | 'done';

/**
 * Decides which waiting jobs may start: per model variant, at most its runtime's
 * `maxConcurrency` jobs hold a slot, and waiting jobs start in {@link FairQueue}'s order
 * (accounts take turns, each one's jobs oldest first). Each variant's jobs are kept from
 * the cache's events, waiting ones in that order, so a decision
 * looks at the jobs ahead of one (often none: a job whose place is within the free slots
 * starts), never at the whole backlog. The cache may lag behind the Pods this controller
 * just created, so starts are also remembered here until the cache shows them; only the
 * leader admits, so this memory is the only writer.
 */
export class Admission {
  private readonly jobs: JobCache;
  private readonly models = new Map<string, ModelJobs>();
  private readonly accounts = new Map<string, AccountJobs>();
  /** Where each unfinished job is: its model, and whether it waits, holds a slot, or is done with it. */
  private readonly places = new Map<string, { model: string; entry: Entry; state: SlotState }>();
  private readonly eligible: (job: GenerationJob) => boolean;
  private readonly hasPod: (job: GenerationJob) => boolean;
  private readonly workerDone: (job: GenerationJob) => boolean;
  private readonly accountMax: (account: string) => number;

  /**
   * `eligible`: whether a waiting job may take a slot at all (its money is held); others
   * do not queue. `hasPod`: whether the Pod cache holds a Pod of the job (a Pod may exist
   * before any status names it); call {@link refresh} when that changes. `accountMax`: the
   * plan's concurrency of an account: the api checks it from its cache, so several replicas
   * can accept a few more; the excess waits here. `workerDone`: whether the Pod of the job's
   * current attempt has succeeded, so its worker is gone and its slot free before the job's
   * own end is written (a succeeded Pod always ends the job; only a lost one is retried).
   */
  constructor(
    jobs: JobCache,
    opts: {
      eligible?: (job: GenerationJob) => boolean;
      hasPod?: (job: GenerationJob) => boolean;
      workerDone?: (job: GenerationJob) => boolean;
      accountMax?: (account: string) => number;
    } = {},
  ) {
    this.jobs = jobs;
    this.eligible = opts.eligible ?? (() => true);
    this.hasPod = opts.hasPod ?? (() => false);
    this.workerDone = opts.workerDone ?? (() => false);
    this.accountMax = opts.accountMax ?? (() => Number.POSITIVE_INFINITY);
    jobs.on((type, job) => this.onJob(type, job));
    for (const job of jobs.list()) this.onJob('add', job);
  }

  /**
   * Looks at a job again: a Pod of it came, changed or went. The job's model when that freed
   * the slot the job held (its worker succeeded): its waiting jobs may start now, without
   * waiting for the job's end to be written and to come back through the cache.
   */
  refresh(name: string): string | undefined {
    const job = this.jobs.get(name);
    if (!job) return undefined;
    const m = this.models.get(job.spec.model);
    const held = this.places.get(name)?.state === 'holding' || (m?.starting.has(name) ?? false);
    this.onJob('update', job);
    return held && this.places.get(name)?.state === 'done' ? job.spec.model : undefined;
  }

  private model(name: string): ModelJobs {
    let m = this.models.get(name);
    if (!m) {
      m = { waiting: new FairQueue<Entry>(), holding: new Set(), starting: new Set() };
      this.models.set(name, m);
    }
    return m;
  }

  private account(name: string): AccountJobs {
    let a = this.accounts.get(name);
    if (!a) {
      a = { waiting: new AdmissionQueue<Entry>(), running: new Set() };
      this.accounts.set(name, a);
    }
    return a;
  }

  private onJob(type: EventType, job: GenerationJob): void {
    const name = job.metadata.name ?? '';
    const m = this.model(job.spec.model);
    const a = this.account(job.spec.account);
    const before = this.places.get(name);
    if (before?.state === 'waiting') {
      m.waiting.remove(before.entry);
      a.waiting.remove(before.entry);
    } else if (before?.state === 'holding') m.holding.delete(name);
    if (type === 'delete' || isTerminal(phaseOf(job))) {
      this.places.delete(name);
      m.starting.delete(name);
      a.running.delete(name);
    } else {
      const entry = before?.entry ?? { ...queuedOf(job), account: job.spec.account, model: job.spec.model };
      const state: SlotState = this.workerDone(job) ? 'done' : this.holdsSlot(job) ? 'holding' : 'waiting';
      if (state === 'waiting') {
        // One this process is starting holds its turn already: it waits no more.
        if (!m.starting.has(name)) m.waiting.put(entry);
        a.waiting.put(entry);
      } else {
        if (state === 'holding') m.holding.add(name);
        m.starting.delete(name);
        // Counted under its plan until it ends: the api counts it so too.
        a.running.add(name);
      }
      this.places.set(name, { model: job.spec.model, entry, state });
    }
    this.syncTurns(m, job.spec.account, name);
    if (m.waiting.length === 0 && m.holding.size === 0 && m.starting.size === 0)
      this.models.delete(job.spec.model);
    if (a.waiting.length === 0 && a.running.size === 0) this.accounts.delete(job.spec.account);
  }

  /** A job holding a slot, or being started, counts against its account's turns at the model. */
  private syncTurns(m: ModelJobs, account: string, name: string): void {
    if (m.holding.has(name) || m.starting.has(name)) m.waiting.hold(account, name);
    else m.waiting.release(account, name);
  }

  private holdsSlot(j: GenerationJob): boolean {
    return (j.status?.attempts ?? 0) > 0 || this.hasPod(j);
  }

  /** Whether the account's running jobs (or ones this process is starting) reach its plan. */
  private accountFull(account: string): boolean {
    return (this.accounts.get(account)?.running.size ?? 0) >= this.accountMax(account);
  }

  /** Slots of the model not held by a job nor by one this process is starting. */
  private free(m: ModelJobs, maxConcurrency: number): number {
    return maxConcurrency - m.holding.size - m.starting.size;
  }

  /** Whether a waiting job may take a slot now: not being started, its money held, its plan not full. */
  private ready(e: Entry, m: ModelJobs): boolean {
    if (m.starting.has(e.name)) return false;
    const job = this.jobs.get(e.name);
    return job !== undefined && this.eligible(job) && !this.accountFull(e.account);
  }

  /** Whether this process started the job and the caches do not show it yet. */
  starting(job: GenerationJob): boolean {
    return (
      !this.holdsSlot(job) &&
      (this.models.get(job.spec.model)?.starting.has(job.metadata.name ?? '') ?? false)
    );
  }

  /** Whether the job may start now: fewer ready jobs are older than it than slots are free. */
  admits(job: GenerationJob, maxConcurrency: number): boolean {
    const m = this.models.get(job.spec.model);
    if (!m) return false;
    const free = this.free(m, maxConcurrency);
    const me = this.places.get(job.metadata.name ?? '');
    if (free <= 0 || me?.state !== 'waiting' || !this.ready(me.entry, m)) return false;
    const ahead = m.waiting.position(me.entry);
    // Even if every job ahead of it were ready, a slot would be left for it.
    if (ahead < free) return true;
    let before = 0;
    for (const e of m.waiting.order()) {
      if (e.name === me.entry.name) break;
      if (this.ready(e, m) && ++before >= free) return false;
    }
    return true;
  }

  /**
   * Counts a start of this process until the cache shows it. A job the cache already shows
   * holding its slot (a retry's next Pod) is counted there once: were it in both sets, its
   * slot would count twice until its next event, and a job refused meanwhile would wait
   * with no event left to wake it.
   */
  markStarted(job: GenerationJob): void {
    const name = job.metadata.name ?? '';
    const m = this.model(job.spec.model);
    if (m.holding.has(name)) return;
    m.starting.add(name);
    const place = this.places.get(name);
    if (place?.state === 'waiting') m.waiting.remove(place.entry);
    this.syncTurns(m, job.spec.account, name);
    this.account(job.spec.account).running.add(name);
  }

  /** Forgets a start that did not happen (Pod creation failed). */
  unmark(job: GenerationJob): void {
    const name = job.metadata.name ?? '';
    const m = this.models.get(job.spec.model);
    if (!m?.starting.delete(name)) return;
    const place = this.places.get(name);
    if (place?.state === 'waiting') m.waiting.put(place.entry);
    this.syncTurns(m, job.spec.account, name);
    // Still counted for its plan if the cache shows it holding a slot after all.
    if (!m.holding.has(name)) this.accounts.get(job.spec.account)?.running.delete(name);
  }

  /**
   * The models whose waiting jobs may start now that the cache shows `job` finished or
   * deleted: its own model (a slot freed) and the models its account has jobs waiting for
   * (room under the plan freed). Called from the cache's event, whoever wrote the change: a
   * look computed when this process's own write returns may come before the cache shows
   * it, count the slot as still taken, and start nothing; were that the last job of the
   * model to end, its waiting jobs would wait until their queue timeout (a day).
   */
  freedBy(job: GenerationJob): string[] {
    const models = new Set([job.spec.model]);
    for (const e of this.accounts.get(job.spec.account)?.waiting.all ?? []) models.add(e.model);
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
    const m = this.models.get(model);
    if (!m) return { slots: maxConcurrency, holding: 0, starting: 0, waiting: 0 };
    return {
      slots: maxConcurrency,
      holding: m.holding.size + m.starting.size,
      starting: m.starting.size,
      waiting: m.waiting.order().filter((e) => this.ready(e, m)).length,
    };
  }

  /** The waiting jobs that would get the free slots of a model: the ones worth reconciling. */
  next(model: string, maxConcurrency: number): string[] {
    const m = this.models.get(model);
    if (!m) return [];
    const free = this.free(m, maxConcurrency);
    const picked: string[] = [];
    for (const e of m.waiting.order()) {
      if (picked.length >= free) break;
      if (this.ready(e, m)) picked.push(e.name);
    }
    return picked;
  }
}
