import { phaseOf } from '../../jobs/record.ts';
import type { Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

/** Local memory is a bridge until the cache shows a write; past this it is dropped. */
const BRIDGE_MS = 30_000;

/**
 * The plan's concurrency at submit, without an Account write: the account's unfinished
 * jobs in the informer cache, corrected by what this process has just done and the cache
 * does not show yet (jobs being created or created, jobs cancelled). Several replicas
 * can together accept a few more than the plan allows; the controller's admission
 * enforces the plan, so the excess waits pending (docs/money.md).
 */
export class PlanGate {
  private readonly jobs: Pick<Informer<GenerationJob>, 'get'>;
  private readonly unfinished: (account: string) => number;
  private readonly now: () => number;
  /** Jobs entered by this process and not yet in the cache, by account: jobId → since. */
  private readonly entered = new Map<string, Map<string, number>>();
  /** Jobs this process ended while the cache still shows them unfinished: jobId → since. */
  private readonly ended = new Map<string, Map<string, number>>();

  /** `unfinished`: the account's unfinished jobs in the cache (unfinished.ts). */
  constructor(
    jobs: Pick<Informer<GenerationJob>, 'get'>,
    unfinished: (account: string) => number,
    now: () => number,
  ) {
    this.jobs = jobs;
    this.unfinished = unfinished;
    this.now = now;
  }

  /** Takes a slot for a submit of `jobId` if fewer than `max` jobs of the account are unfinished. */
  enter(account: string, jobId: string, max: number): { ok: boolean; active: number } {
    const active = this.active(account);
    if (active >= max) return { ok: false, active };
    const mine = this.entered.get(account) ?? new Map<string, number>();
    mine.set(jobId, this.now());
    this.entered.set(account, mine);
    return { ok: true, active: active + 1 };
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

  private active(account: string): number {
    const now = this.now();
    let n = this.unfinished(account);
    const entered = this.entered.get(account);
    for (const [id, since] of entered ?? []) {
      if (this.jobs.get(id) || now - since > BRIDGE_MS) entered!.delete(id);
      else n++;
    }
    const ended = this.ended.get(account);
    for (const [id, since] of ended ?? []) {
      const j = this.jobs.get(id);
      if (!j || isTerminal(phaseOf(j)) || now - since > BRIDGE_MS) ended!.delete(id);
      else n--;
    }
    return Math.max(0, n);
  }
}
