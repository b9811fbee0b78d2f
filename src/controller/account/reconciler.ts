import { eraseMode } from '../../jobs/labels.ts';
import type { EventRecorder } from '../../k8s/events.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { type Account, API_VERSION, type GenerationJob, isTerminal } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import { dollars } from '../../ledger/dollars.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { Money } from '../../ledger/money.ts';
import { imbalance } from '../../ledger/ops.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';
import { sameJson, setCondition } from '../conditions.ts';
import { closeBatchMs, closeLeases } from './close-lease.ts';

export interface AccountReconcilerDeps {
  accounts: CustomResources<Account>;
  accountCache: Informer<Account>;
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  ledger: Ledger;
  events: EventRecorder;
  log: Logger;
  /** How long a reservation may wait for its job to appear. */
  reservationGraceMs: number;
  /** How long after its term a credit lease is counted and closed (docs/money.md). */
  leaseGraceMs: number;
  /**
   * How long past that a lease whose jobs are not all finished stays open, paying for them,
   * before its close gives each unfinished one a reservation (docs/money.md). 0: never.
   */
  leaseHoldMs: number;
  /** The jobs a lease pays for, from the job cache (the close itself lists them afresh). */
  money: Pick<Money, 'leaseJobs'>;
  enqueueJob: (jobId: string) => void;
  /**
   * The service's plans (GENJOBS_PLANS): an Account of another plan may run no jobs (the
   * api refuses its submits), which its Ready condition says.
   */
  plans?: Readonly<Record<string, number>>;
  /** Where the count of Accounts whose ledger does not balance is reported. */
  metrics?: Pick<Metrics, 'ledgerImbalancedAccounts'>;
  now?: () => number;
  /** Erases an Account marked for deletion (see {@link AccountEraser}) instead of keeping its ledger. */
  erase?: (account: Account) => Promise<HandlerResult | undefined>;
}

/**
 * Keeps an Account's ledger whole: applies a raised grant (exactly once: the ledger
 * records how much it has applied), closes credit leases once their term and a grace have
 * passed, refunds reservations whose job never appeared (the api died between reserving
 * and creating the job) once a grace period has passed, hands
 * reservations of finished jobs to the job reconciler to settle, and reports its state
 * in the Ready condition: a ledger that does not balance (see {@link imbalance}; every write
 * of the ledger is balanced, so only a hand edit of the status makes one), a lowered grant,
 * a plan the service does not have.
 */
export class AccountReconciler {
  private readonly d: AccountReconcilerDeps;
  /**
   * When this process first saw each reservation without its job, by account. Kept in
   * memory rather than in the Account (a timestamp per reservation made every ledger write
   * larger): after a restart the grace starts again, which only delays a refund.
   */
  private readonly jobless = new Map<string, Map<string, number>>();
  /** The Accounts whose ledger did not balance when last reconciled (for the gauge). */
  private readonly imbalanced = new Set<string>();

  constructor(deps: AccountReconcilerDeps) {
    this.d = deps;
  }

  async reconcile(name: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    if (!d.accountCache.get(name)) {
      this.jobless.delete(name);
      this.countImbalance(name, 0);
      return undefined;
    }
    const marked = d.accountCache.get(name)!;
    if (eraseMode(marked) && d.erase) return d.erase(marked);
    await d.ledger.run(name, { kind: 'sync' });
    const now = d.now?.() ?? Date.now();
    let requeueAfterMs: number | undefined;
    const account = d.accountCache.get(name)!;
    const seen = this.jobless.get(name) ?? new Map<string, number>();
    const stillJobless = new Map<string, number>();
    const orphans: string[] = [];
    const closing: string[] = [];
    for (const jobId of Object.keys(account.status?.reservations ?? {})) {
      const job = d.jobCache.get(jobId);
      if (job) {
        if (isTerminal(job.status?.phase)) d.enqueueJob(jobId);
        continue;
      }
      const since = seen.get(jobId) ?? now;
      stillJobless.set(jobId, since);
      const age = now - since;
      if (age < d.reservationGraceMs) {
        requeueAfterMs = Math.min(requeueAfterMs ?? Number.POSITIVE_INFINITY, d.reservationGraceMs - age + 1);
        continue;
      }
      // The cache says no job; ask the apiserver before giving money back.
      if (!(await d.jobs.get(jobId))) orphans.push(jobId);
    }
    if (stillJobless.size > 0) this.jobless.set(name, stillJobless);
    else this.jobless.delete(name);
    const batch = closeBatchMs(d.leaseGraceMs);
    // Rounded up to a common instant, so the leases of a few seconds close in one write.
    const wake = (at: number) => {
      requeueAfterMs = Math.min(requeueAfterMs ?? Number.POSITIVE_INFINITY, roundUp(at, batch) - now + 1);
    };
    for (const [id, lease] of Object.entries(account.status?.leases ?? {})) {
      const due = Date.parse(lease.expiresAt) + d.leaseGraceMs;
      if (now < due) wake(due);
      else if (now < due + d.leaseHoldMs && this.holds(name, id, lease.amount)) wake(now + batch);
      else closing.push(id);
    }
    // All at once: the ledger writes them together (and settlements linger to be batched).
    await Promise.all([
      ...orphans.map((jobId) => this.refundOrphan(account, jobId)),
      closeLeases(d, name, closing),
    ]);
    await this.updateReady(name, now);
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  /**
   * Whether a due lease stays open: its replica gave back what it did not draw (the jobs the
   * lease pays for hold its whole amount) and one of them is unfinished. It goes on paying
   * for them, so their completions need no Account write; it closes once they have all
   * ended, in one write, where closing now would give each a reservation to charge later
   * (a write per few jobs). A lease whose replica died holding credit closes now: its
   * remainder goes back without waiting for the jobs.
   */
  private holds(account: string, id: string, amount: number): boolean {
    const { paid, unfinished } = this.d.money.leaseJobs(account, id);
    return unfinished && paid >= amount;
  }

  private async refundOrphan(account: Account, jobId: string): Promise<void> {
    const name = account.metadata.name ?? '';
    const r = await this.d.ledger.run(name, { kind: 'refund', jobId });
    if (!r.ok || r.amount === 0) return;
    this.d.log.warn(
      { account: name, jobId, amount: r.amount },
      'refunded a reservation whose job never appeared',
    );
    void this.d.events.record(
      { apiVersion: API_VERSION, kind: 'Account', name, uid: account.metadata.uid },
      'Warning',
      'ReservationRefunded',
      `job ${jobId} was never created; ${r.amount} micro-cents returned`,
    );
  }

  private async updateReady(name: string, now: number): Promise<void> {
    // From the cache: every Account write is an event here, so a GET per event would double
    // the apiserver's work per ledger write. A stale copy costs a conflict, and the newer
    // object's event brings the account back.
    const account = this.d.accountCache.get(name);
    if (!account) return;
    const applied = account.status?.appliedGrantMicroCents ?? 0;
    const lowered = account.spec.grantedMicroCents < applied;
    // Each cached copy is one whole write, and each ledger write balances (every operation
    // does, and a batch is written in one compare-and-swap), so there is no in-between
    // state to see here: a difference is a hand edit of the status, or a bug.
    const off = imbalance(account.status);
    this.countImbalance(name, off);
    const previous = account.status?.conditions?.find((c) => c.type === 'Ready');
    const ready =
      off !== 0
        ? { status: 'False' as const, reason: 'LedgerImbalanced', message: imbalanceMessage(off) }
        : lowered
          ? {
              status: 'False' as const,
              reason: 'GrantLowered',
              message: `grantedMicroCents is below the ${applied} already applied; grants can only be raised`,
            }
          : this.d.plans && !Object.hasOwn(this.d.plans, account.spec.plan)
            ? {
                status: 'False' as const,
                reason: 'UnknownPlan',
                message: `plan ${account.spec.plan} is not one of this service's (${Object.keys(this.d.plans).join(', ')}): its submits are refused until it has one`,
              }
            : { status: 'True' as const, reason: 'LedgerCurrent', message: 'grants applied' };
    const conditions = setCondition(
      account.status?.conditions,
      { type: 'Ready', ...ready, observedGeneration: account.metadata.generation },
      new Date(now),
    );
    const status = { ...account.status, conditions, observedGeneration: account.metadata.generation };
    if (sameJson(status, account.status ?? {})) return;
    try {
      await this.d.accounts.updateStatus({ ...account, status });
    } catch (err) {
      // A ledger write got in first; the next event on the account brings us back.
      if (!(typeof err === 'object' && err && 'code' in err && err.code === 409)) throw err;
      return;
    }
    // Reported with the write that records it, as a job's Warning Events are: the condition
    // remembers what was reported (across restarts too), so the same amount is reported once.
    const reported = previous?.reason === ready.reason && previous.message === ready.message;
    if (off !== 0 && !reported) this.reportImbalance(account, off, ready.message);
  }

  private reportImbalance(account: Account, off: number, message: string): void {
    const name = account.metadata.name ?? '';
    this.d.log.error(
      { account: name, imbalanceMicroCents: off },
      'ledger imbalanced: balance + held + spent differs from the applied grant',
    );
    void this.d.events.record(
      { apiVersion: API_VERSION, kind: 'Account', name, uid: account.metadata.uid },
      'Warning',
      'LedgerImbalanced',
      message,
    );
  }

  private countImbalance(name: string, off: number): void {
    if (off !== 0) this.imbalanced.add(name);
    else this.imbalanced.delete(name);
    this.d.metrics?.ledgerImbalancedAccounts.set(this.imbalanced.size);
  }
}

/**
 * What a Ready condition says of a ledger that does not balance: the amount in dollars and
 * micro-cents, and which way (more than the grant: money created; less: money missing).
 */
export function imbalanceMessage(off: number): string {
  const amount = Math.abs(off);
  const way = off > 0 ? 'more than' : 'less than';
  const what = off > 0 ? 'money created' : 'money missing';
  return (
    `balance + held + spent is ${dollars(amount)} (${amount} micro-cents) ${way} the applied grant: ` +
    `${what} (the ledger's own writes balance: was the status edited by hand?)`
  );
}

const roundUp = (t: number, step: number) => Math.ceil(t / step) * step;
