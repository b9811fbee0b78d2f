import type { AccountStatus, CreditLease } from '../k8s/types.ts';

/** How a job of a lease stands when its lease closes. */
export type LeaseJobState = 'completed' | 'unfinished' | 'returned';

/** The ledger's operations on credit leases (docs/money.md). */
export type LeaseOp =
  /**
   * An api replica takes credit for its submits: `demand` (the submits waiting for it, at
   * least `min`, the cheapest of them) plus `headroom` (about a second of the account's
   * submits) when the balance is ample; only the demand when it is low, so that the
   * money stays within reach of other replicas.
   */
  | { kind: 'lease'; id: string; expiresAt: string; demand: number; min: number; headroom: number }
  /** The replica is done with the lease: all but `keep` (its jobs' costs) returns to the balance. */
  | { kind: 'release'; id: string; keep: number }
  /**
   * The lease's jobs are counted (after its expiry and a grace, from a fresh list): the
   * money of completed ones is spent, unfinished ones get a reservation each, the rest
   * returns to the balance, and the lease is gone. `jobs`: those the lease pays for.
   */
  | { kind: 'closeLease'; id: string; jobs: { name: string; cost: number; state: LeaseJobState }[] }
  /** A failed or cancelled job the lease pays for: its cost returns, once. */
  | { kind: 'refundLeased'; jobId: string; id: string; cost: number };

type Status = Required<
  Pick<AccountStatus, 'balanceMicroCents' | 'spentMicroCents' | 'reservations' | 'leases'>
>;

type Result =
  | { ok: true; amount: number; duplicate?: boolean }
  | { ok: false; reason: 'INSUFFICIENT_BALANCE'; balance: number; active: number };

/** Applies one lease operation to a normalized status in place (see ops.ts `apply`). */
export function applyLeaseOp(status: Status, op: LeaseOp): Result {
  const lease = status.leases[op.id];
  switch (op.kind) {
    case 'lease': {
      if (lease) return { ok: true, amount: lease.amount, duplicate: true };
      const balance = status.balanceMicroCents;
      if (balance < op.min) return { ok: false, reason: 'INSUFFICIENT_BALANCE', balance, active: 0 };
      const ample = balance >= op.demand + 4 * op.headroom;
      const amount = ample ? op.demand + op.headroom : Math.min(balance, op.demand);
      if (amount === 0) return { ok: true, amount: 0 };
      status.balanceMicroCents -= amount;
      status.leases[op.id] = { amount, expiresAt: op.expiresAt };
      return { ok: true, amount };
    }
    case 'release': {
      if (!lease) return { ok: true, amount: 0 };
      const keep = Math.max(op.keep, refundedSum(lease));
      if (lease.amount <= keep) return { ok: true, amount: 0 };
      const back = lease.amount - keep;
      status.balanceMicroCents += back;
      if (keep === 0) delete status.leases[op.id];
      else lease.amount = keep;
      return { ok: true, amount: back };
    }
    case 'refundLeased': {
      if (!lease || lease.refunded?.[op.jobId] !== undefined) return { ok: true, amount: 0 };
      // Never more than the lease holds: a refund beyond it would create money.
      if (refundedSum(lease) + op.cost > lease.amount) return { ok: true, amount: 0 };
      lease.refunded = { ...lease.refunded, [op.jobId]: op.cost };
      status.balanceMicroCents += op.cost;
      return { ok: true, amount: op.cost };
    }
    case 'closeLease': {
      if (!lease) return { ok: true, amount: 0 };
      let kept = refundedSum(lease);
      for (const j of op.jobs) {
        if (lease.refunded?.[j.name] !== undefined || kept + j.cost > lease.amount) continue;
        if (j.state === 'completed') status.spentMicroCents += j.cost;
        else if (j.state === 'unfinished' && status.reservations[j.name] === undefined)
          status.reservations[j.name] = j.cost;
        else continue;
        kept += j.cost;
      }
      const back = lease.amount - kept;
      status.balanceMicroCents += back;
      delete status.leases[op.id];
      return { ok: true, amount: back };
    }
  }
}

/** Whether an open lease still holds a job's money (it was not refunded). */
export function leaseHeld(lease: CreditLease | undefined, jobId: string): boolean {
  return lease !== undefined && lease.refunded?.[jobId] === undefined;
}

function refundedSum(lease: CreditLease): number {
  return Object.values(lease.refunded ?? {}).reduce((a, b) => a + b, 0);
}
