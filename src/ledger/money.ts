import type { Informer } from '../k8s/informer.ts';
import { type Account, type GenerationJob, isTerminal } from '../k8s/types.ts';
import { leaseFit } from './fit.ts';
import { type Holding, holding } from './ops.ts';

const BY_LEASE = 'money:by-lease';

/**
 * Where each job's money is held, read from the caches: a per-job reservation, or the
 * credit lease the job names when the lease pays for it (leaseFit over the lease's jobs).
 * Only a job whose money is held may start (admission), and only a held refund is paid.
 */
export class Money {
  private readonly jobs: Informer<GenerationJob>;
  private readonly account: (name: string) => Account | undefined;
  /** Which jobs a lease pays for, recomputed when its job count or its amount changes. */
  private readonly fitted = new Map<string, { count: number; amount: number; fits: Set<string> }>();

  /**
   * `accounts`: the Account cache, or a function answering fresher copies (the api's ledger
   * knows the lease it wrote before its cache shows it).
   */
  constructor(
    jobs: Informer<GenerationJob>,
    accounts: Informer<Account> | ((name: string) => Account | undefined),
  ) {
    this.jobs = jobs;
    this.account = typeof accounts === 'function' ? accounts : (name) => accounts.get(name);
    jobs.addIndex(BY_LEASE, (j) => (j.spec.lease ? [j.spec.lease] : []));
  }

  holding(job: GenerationJob): Holding {
    return holding(this.account(job.spec.account), job, (lease, j) => this.fits(lease, j));
  }

  /** What the cached jobs naming a lease cost: what was drawn from it, as far as this cache shows. */
  drawnFrom(lease: string): number {
    let sum = 0;
    for (const j of this.jobs.byIndex(BY_LEASE, lease)) sum += j.spec.costMicroCents;
    return sum;
  }

  /**
   * A lease as far as this cache shows it: what the jobs it pays for cost (`paid`: for a lease
   * its replica released, the lease's whole amount) and whether any of them is unfinished.
   */
  leaseJobs(account: string, lease: string): { paid: number; unfinished: boolean } {
    let paid = 0;
    let unfinished = false;
    for (const j of this.jobs.byIndex(BY_LEASE, lease)) {
      if (j.spec.account !== account || !this.fits(lease, j)) continue;
      paid += j.spec.costMicroCents;
      if (!isTerminal(j.status?.phase)) unfinished = true;
    }
    return { paid, unfinished };
  }

  /** The amount of an open lease of the job's account, or undefined. */
  leaseOf(job: GenerationJob): { amount: number; expiresAt: number } | undefined {
    const l = job.spec.lease ? this.account(job.spec.account)?.status?.leases?.[job.spec.lease] : undefined;
    return l && { amount: l.amount, expiresAt: Date.parse(l.expiresAt) };
  }

  private fits(lease: string, job: GenerationJob): boolean {
    const amount = this.leaseOf(job)?.amount ?? 0;
    const name = job.metadata.name ?? '';
    // A job the cache does not show yet (made a moment ago, read from the apiserver): fitted
    // with it among the lease's jobs, once (the cache's own fit is kept for when it shows).
    if (!this.jobs.get(name)) {
      const members = [...this.jobs.byIndex(BY_LEASE, lease), job].map(member);
      return leaseFit(amount, members).has(name);
    }
    const count = this.jobs.countByIndex(BY_LEASE, lease);
    let f = this.fitted.get(lease);
    if (!f || f.count !== count || f.amount !== amount) {
      const members = this.jobs.byIndex(BY_LEASE, lease).map(member);
      // Closed leases are never asked about again: a bounded memory, rebuilt on demand.
      if (this.fitted.size > 10_000) this.fitted.clear();
      f = { count, amount, fits: leaseFit(amount, members) };
      this.fitted.set(lease, f);
    }
    return f.fits.has(job.metadata.name ?? '');
  }
}

function member(j: GenerationJob) {
  return { name: j.metadata.name ?? '', cost: j.spec.costMicroCents, createdAt: createdAt(j) };
}

/** A job's creation time in ms, whether the object came from a cache (string) or a client (Date). */
export function createdAt(job: GenerationJob): number {
  const t: unknown = job.metadata.creationTimestamp;
  return t instanceof Date ? t.getTime() : Date.parse(String(t ?? '')) || 0;
}
