import type { Account, AccountStatus } from '../k8s/types.ts';

/**
 * The ledger's operations on one Account, as pure functions of its status. An Account is
 * the ledger: `balance + Σ reservations + spent == appliedGrant` holds before and after
 * every operation (integers only), and each operation is idempotent by construction:
 * reserving a job that already holds a reservation does nothing, settling a job without
 * one does nothing.
 */
export type LedgerOp =
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
  /** Job failed, was cancelled, or never got created: give the reservation back. */
  | { kind: 'refund'; jobId: string }
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
    'balanceMicroCents' | 'appliedGrantMicroCents' | 'spentMicroCents' | 'reservations' | 'activeJobs'
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
    activeJobs: 0,
  };
  // Grants only grow the balance; a lowered grant is not applied (it would take back
  // credit that may already be spent) and the Account reconciler reports it.
  const delta = account.spec.grantedMicroCents - status.appliedGrantMicroCents;
  if (delta > 0) {
    status.balanceMicroCents += delta;
    status.appliedGrantMicroCents = account.spec.grantedMicroCents;
  }
  status.activeJobs = Object.keys(status.reservations).length;
  return status;
}

/** Applies one operation to a normalized status in place and says what happened. */
export function apply(status: ReturnType<typeof normalized>, op: LedgerOp): LedgerResult {
  if (op.kind === 'sync') return { ok: true, amount: 0 };
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
  status.activeJobs = Object.keys(status.reservations).length;
  return { ok: true, amount: op.kind === 'reserve' ? op.cost : (held ?? 0) };
}

/** Whether the job holds a reservation in the account (unsettled: waiting, running or awaiting settlement). */
export function holdsReservation(account: Account | undefined, jobId: string): boolean {
  return account?.status?.reservations?.[jobId] !== undefined;
}

/** balance + Σ reservations + spent − appliedGrant: zero for a consistent ledger. */
export function imbalance(status: AccountStatus | undefined): number {
  const s = status ?? {};
  const reserved = Object.values(s.reservations ?? {}).reduce((a, b) => a + b, 0);
  return (s.balanceMicroCents ?? 0) + reserved + (s.spentMicroCents ?? 0) - (s.appliedGrantMicroCents ?? 0);
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
    s.activeJobs ?? 0,
  ];
}
