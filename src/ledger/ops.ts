import { type Account, type AccountStatus, type GenerationJob, isTerminal } from '../k8s/types.ts';
import { applyLeaseOp, type LeaseOp, leaseHeld } from './lease-ops.ts';

/**
 * The ledger's operations on one Account, as pure functions of its status. An Account is
 * the ledger: {@link imbalance} is zero before and after every operation (integers only),
 * and each operation is idempotent by construction: reserving a job that already holds a
 * reservation does nothing, settling a job without one does nothing, a lease taken or
 * closed twice is taken or closed once.
 */
export type LedgerOp =
  | LeaseOp
  | {
      kind: 'reserve';
      jobId: string;
      cost: number;
      maxConcurrent: number;
      /**
       * Jobs the caller knows to be finished: their reservations await a (batched)
       * settlement and do not count toward the plan's concurrency.
       */
      finished?: (jobId: string) => boolean;
    }
  /**
   * Job failed, was cancelled, or never got created: give its money back. Its reservation,
   * or, with `lease` (only for a job the lease pays for: see leaseFit), its cost out of
   * the open lease, recorded so that it is given back once.
   */
  | { kind: 'refund'; jobId: string; lease?: { id: string; cost: number } }
  /** Job completed: the reservation becomes spent. */
  | { kind: 'charge'; jobId: string }
  /** Nothing but bringing the status up to date (a raised grant). */
  | { kind: 'sync' };

export type LedgerResult =
  | { ok: true; amount: number; duplicate?: boolean }
  | {
      ok: false;
      reason: 'INSUFFICIENT_BALANCE' | 'CONCURRENT_JOBS_EXCEEDED';
      balance: number;
      active: number;
    };

/** A copy of the status with defaults filled in and any newly granted credit applied. */
export function normalized(
  account: Account,
): Required<
  Pick<
    AccountStatus,
    | 'balanceMicroCents'
    | 'appliedGrantMicroCents'
    | 'spentMicroCents'
    | 'reservations'
    | 'leases'
    | 'activeJobs'
    | 'heldMicroCents'
  >
> &
  AccountStatus {
  const s = account.status ?? {};
  const status = {
    ...s,
    balanceMicroCents: s.balanceMicroCents ?? 0,
    appliedGrantMicroCents: s.appliedGrantMicroCents ?? 0,
    spentMicroCents: s.spentMicroCents ?? 0,
    reservations: { ...(s.reservations ?? {}) },
    // Copied one level deeper: operations change a lease's amount and refunds in place. A
    // lease without refunds stays without the field: an empty one added here made every
    // Account sync after a lease was taken a write that changed nothing else.
    leases: Object.fromEntries(
      Object.entries(s.leases ?? {}).map(([id, l]) => [
        id,
        l.refunded ? { ...l, refunded: { ...l.refunded } } : { ...l },
      ]),
    ),
    activeJobs: 0,
    heldMicroCents: 0,
  };
  // Grants only grow the balance; a lowered grant is not applied (it would take back
  // credit that may already be spent) and the Account reconciler reports it.
  const delta = account.spec.grantedMicroCents - status.appliedGrantMicroCents;
  if (delta > 0) {
    status.balanceMicroCents += delta;
    status.appliedGrantMicroCents = account.spec.grantedMicroCents;
  }
  recount(status);
  return status;
}

/** The figures kept beside the ledger for operators (printer columns), from the ledger itself. */
function recount(status: ReturnType<typeof normalized>): void {
  status.activeJobs = Object.keys(status.reservations).length;
  status.heldMicroCents = held(status);
}

/**
 * Credit taken from the balance and neither spent nor given back: reservations, and open
 * leases less their refunds (a lease's charged jobs count until the lease closes).
 */
export function held(s: AccountStatus): number {
  const sum = (m: Record<string, number> | undefined) => Object.values(m ?? {}).reduce((a, b) => a + b, 0);
  let leased = 0;
  for (const l of Object.values(s.leases ?? {})) leased += l.amount - sum(l.refunded);
  return leased + sum(s.reservations);
}

/** Applies one operation to a normalized status in place and says what happened. */
export function apply(status: ReturnType<typeof normalized>, op: LedgerOp): LedgerResult {
  const result = applyOp(status, op);
  recount(status);
  return result;
}

function applyOp(status: ReturnType<typeof normalized>, op: LedgerOp): LedgerResult {
  if (op.kind === 'sync') return { ok: true, amount: 0 };
  if (op.kind === 'lease' || op.kind === 'release' || op.kind === 'closeLease' || op.kind === 'refundLeased')
    return applyLeaseOp(status, op);
  if (op.kind === 'refund' && op.lease && status.reservations[op.jobId] === undefined) {
    return applyLeaseOp(status, { kind: 'refundLeased', jobId: op.jobId, ...op.lease });
  }
  const held = status.reservations[op.jobId];
  switch (op.kind) {
    case 'reserve': {
      if (held !== undefined) return { ok: true, amount: held, duplicate: true };
      const finished = op.finished;
      const holders = Object.keys(status.reservations);
      const active = finished ? holders.filter((id) => !finished(id)).length : holders.length;
      if (active >= op.maxConcurrent) {
        return { ok: false, reason: 'CONCURRENT_JOBS_EXCEEDED', balance: status.balanceMicroCents, active };
      }
      if (status.balanceMicroCents < op.cost) {
        return { ok: false, reason: 'INSUFFICIENT_BALANCE', balance: status.balanceMicroCents, active };
      }
      status.balanceMicroCents -= op.cost;
      status.reservations[op.jobId] = op.cost;
      break;
    }
    case 'refund':
      if (held === undefined) return { ok: true, amount: 0 };
      status.balanceMicroCents += held;
      delete status.reservations[op.jobId];
      break;
    case 'charge':
      if (held === undefined) return { ok: true, amount: 0 };
      status.spentMicroCents += held;
      delete status.reservations[op.jobId];
      break;
  }
  return { ok: true, amount: op.kind === 'reserve' ? op.cost : (held ?? 0) };
}

/**
 * Where a job's money is held, if anywhere; `free`: an unfinished job that costs nothing (a
 * 100% discount), which may run with nothing held and has nothing to settle.
 */
export type Holding = 'reservation' | 'lease' | 'free' | 'none';

/**
 * Whether the account holds the job's money (unsettled: waiting, running or awaiting
 * settlement): a reservation equal to the job's own cost (a reservation fixed by another
 * body sent with the same Idempotency-Key does not pay for this one), or its open lease,
 * when `fits` says the lease pays for it and it was not refunded.
 */
export function holding(
  account: Account | undefined,
  job: GenerationJob,
  fits: (lease: string, job: GenerationJob) => boolean,
): Holding {
  const jobId = job.metadata.name ?? '';
  const reserved = account?.status?.reservations?.[jobId];
  if (reserved !== undefined) return reserved === job.spec.costMicroCents ? 'reservation' : 'none';
  const lease = job.spec.lease;
  if (lease && leaseHeld(account?.status?.leases?.[lease], jobId) && fits(lease, job)) return 'lease';
  if (job.spec.costMicroCents === 0 && !lease && !isTerminal(job.status?.phase)) return 'free';
  return 'none';
}

/**
 * balance + Σ open lease amounts − Σ lease refunds + Σ reservations + spent − appliedGrant:
 * zero for a consistent ledger. The one place the invariant is computed.
 */
export function imbalance(status: AccountStatus | undefined): number {
  const s = status ?? {};
  return (s.balanceMicroCents ?? 0) + held(s) + (s.spentMicroCents ?? 0) - (s.appliedGrantMicroCents ?? 0);
}

/** Whether two statuses hold the same ledger (so a write can be skipped). */
export function sameLedger(a: AccountStatus | undefined, b: AccountStatus): boolean {
  return JSON.stringify(ledgerFields(a ?? {})) === JSON.stringify(ledgerFields(b));
}

function ledgerFields(s: AccountStatus) {
  const sorted = (m: Record<string, unknown> | undefined) =>
    Object.entries(m ?? {}).sort(([x], [y]) => (x < y ? -1 : 1));
  return [
    s.balanceMicroCents ?? 0,
    s.appliedGrantMicroCents ?? 0,
    s.spentMicroCents ?? 0,
    sorted(s.reservations),
    sorted(s.leases),
    s.activeJobs ?? 0,
    s.heldMicroCents ?? 0,
  ];
}
