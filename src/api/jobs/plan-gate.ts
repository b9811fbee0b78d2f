import { phaseOf } from '../../jobs/record.ts';
import type { Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

/** Local memory is a bridge until the cache shows a write; past this it is dropped. */
const BRIDGE_MS = 30_000;

/** A submit of this process the cache does not show yet: since when, and its job once created. */
interface Entered {
  since: number;
  job?: GenerationJob;
}

/**
 * The account's unfinished jobs as this process knows them, without an Account write: those
 * in the informer cache, corrected by what this process has just done and the cache does
 * not show yet (jobs being created or created, jobs cancelled). The plan's concurrency and
 * the live-jobs cap count them, and the job list shows the jobs created here (a list right
 * after a submit finds its job). Several replicas can together accept a few more than the
 * plan allows; the controller's admission enforces the plan, so the excess waits pending
 * (docs/money.md). Each memory ends at the cache's first event of its job.
 */
export class PlanGate {
  private readonly jobs: Pick<Informer<GenerationJob>, 'get' | 'on'>;
  private readonly unfinishedInCache: (account: string) => number;
  private readonly now: () => number;
  /** Jobs entered by this process and not yet in the cache, by account. */
  private readonly entered = new Map<string, Map<string, Entered>>();
  /** Jobs this process ended while the cache still shows them unfinished: jobId → since. */
  private readonly ended = new Map<string, Map<string, number>>();

  /** `unfinished`: the account's unfinished jobs in the cache (unfinished.ts). */
  constructor(
    jobs: Pick<Informer<GenerationJob>, 'get' | 'on'>,
    unfinished: (account: string) => number,
    now: () => number,
  ) {
    this.jobs = jobs;
    this.unfinishedInCache = unfinished;
    this.now = now;
    jobs.on((_type, job) => this.entered.get(job.spec.account)?.delete(job.metadata.name ?? ''));
  }

  /** Takes a slot for a submit of `jobId` if fewer than `max` jobs of the account are unfinished. */
  enter(account: string, jobId: string, max: number): { ok: boolean; active: number } {
    const active = this.unfinished(account);
    if (active >= max) return { ok: false, active };
    const mine = this.entered.get(account) ?? new Map<string, Entered>();
    mine.set(jobId, { since: this.now() });
    this.entered.set(account, mine);
    return { ok: true, active: active + 1 };
  }

  /** The job of a slot taken by {@link enter} exists: shown in the list until the cache has it. */
  created(job: GenerationJob): void {
    const entry = this.entered.get(job.spec.account)?.get(job.metadata.name ?? '');
    if (entry) entry.job = job;
  }

  /** Gives back a slot whose job was not created. */
  leave(account: string, jobId: string): void {
    this.entered.get(account)?.delete(jobId);
  }

  /** A job this process ended (cancelled): its slot is free before the cache says so. */
  end(account: string, jobId: string): void {
    const mine = this.ended.get(account) ?? new Map<string, number>();
    mine.set(jobId, this.now());
    this.ended.set(account, mine);
  }

  /** The account's jobs created here that the cache has not shown yet. */
  *fresh(account: string): Iterable<GenerationJob> {
    const now = this.now();
    for (const { since, job } of this.entered.get(account)?.values() ?? [])
      if (job && now - since <= BRIDGE_MS && !this.jobs.get(job.metadata.name ?? '')) yield job;
  }

  /** The account's unfinished jobs: the cache's, and this process's own writes it does not show yet. */
  unfinished(account: string): number {
    const now = this.now();
    let n = this.unfinishedInCache(account);
    const entered = this.entered.get(account);
    for (const [id, { since }] of entered ?? []) {
      if (this.jobs.get(id) || now - since > BRIDGE_MS) entered!.delete(id);
      else n++;
    }
    if (entered?.size === 0) this.entered.delete(account);
    const ended = this.ended.get(account);
    for (const [id, since] of ended ?? []) {
      const j = this.jobs.get(id);
      if (!j || isTerminal(phaseOf(j)) || now - since > BRIDGE_MS) ended!.delete(id);
      else n--;
    }
    if (ended?.size === 0) this.ended.delete(account);
    return Math.max(0, n);
  }
}
