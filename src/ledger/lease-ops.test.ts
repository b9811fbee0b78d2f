import { describe, expect, it } from 'vitest';
import type { Account, GenerationJob } from '../k8s/types.ts';
import { leaseFit } from './fit.ts';
import { apply, holding, imbalance, type LedgerOp, normalized } from './ops.ts';

const account = (granted: number, status: Account['status'] = {}): Account => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'Account',
  metadata: { name: 'acme' },
  spec: { plan: 'pro', grantedMicroCents: granted },
  status,
});
const EXPIRES = '2026-01-01T00:00:02Z';
const lease = (id: string, demand: number, headroom = 0, min = demand): LedgerOp => ({
  kind: 'lease',
  id,
  expiresAt: EXPIRES,
  demand,
  min,
  headroom,
});

/** Applies ops in order to a fresh account and checks the invariant after each. */
function ledger(granted: number, ...ops: LedgerOp[]) {
  const st = normalized(account(granted));
  const results = ops.map((op) => {
    const r = apply(st, op);
    expect(imbalance(st)).toBe(0);
    // The stored figure operators see is kept in step with every operation.
    expect(st.heldMicroCents).toBe(st.appliedGrantMicroCents - st.balanceMicroCents - st.spentMicroCents);
    return r;
  });
  return { st, results };
}

describe('credit leases on the ledger', () => {
  it('takes demand plus headroom when the balance is ample, and only the demand when it is low', () => {
    const ample = ledger(10_000, lease('a', 100, 500));
    expect([ample.results[0], ample.st.balanceMicroCents]).toEqual([{ ok: true, amount: 600 }, 9_400]);
    const low = ledger(1_000, lease('a', 100, 500));
    expect([low.results[0], low.st.balanceMicroCents]).toEqual([{ ok: true, amount: 100 }, 900]);
    // Demand for several submits above the balance: what is there, if the cheapest fits.
    const short = ledger(250, lease('a', 300, 0, 100));
    expect([short.results[0], short.st.balanceMicroCents]).toEqual([{ ok: true, amount: 250 }, 0]);
    const refused = ledger(50, lease('a', 100));
    expect(refused.results[0]).toMatchObject({ ok: false, reason: 'INSUFFICIENT_BALANCE', balance: 50 });
    // Taken twice (a retried write) is taken once.
    const twice = ledger(10_000, lease('a', 100), lease('a', 100));
    expect([twice.results[1], twice.st.balanceMicroCents]).toEqual([
      { ok: true, amount: 100, duplicate: true },
      9_900,
    ]);
  });

  it('release returns all but the jobs drawn; refunds are paid once and never beyond the lease', () => {
    const { st, results } = ledger(
      10_000,
      lease('a', 1_000),
      { kind: 'refundLeased', id: 'a', jobId: 'j1', cost: 300 },
      { kind: 'refundLeased', id: 'a', jobId: 'j1', cost: 300 },
      { kind: 'release', id: 'a', keep: 600 },
      { kind: 'refundLeased', id: 'a', jobId: 'j2', cost: 400 },
    );
    expect(results.map((r) => r.ok && r.amount)).toEqual([1_000, 300, 0, 400, 0]);
    expect(st.leases.a).toEqual({ amount: 600, expiresAt: EXPIRES, refunded: { j1: 300 } });
    expect(st.balanceMicroCents).toBe(9_700);
    // A release keeping nothing ends the lease.
    const none = ledger(10_000, lease('a', 1_000), { kind: 'release', id: 'a', keep: 0 });
    expect([none.st.leases, none.st.balanceMicroCents]).toEqual([{}, 10_000]);
  });

  it('close: completed jobs are spent, unfinished ones reserved, the rest returns; closing twice does nothing', () => {
    const { st, results } = ledger(
      10_000,
      lease('a', 1_000),
      { kind: 'refundLeased', id: 'a', jobId: 'failed-early', cost: 100 },
      {
        kind: 'closeLease',
        id: 'a',
        jobs: [
          { name: 'done', cost: 200, state: 'completed' },
          { name: 'running', cost: 300, state: 'unfinished' },
          { name: 'cancelled', cost: 150, state: 'returned' },
          { name: 'failed-early', cost: 100, state: 'returned' },
        ],
      },
      { kind: 'closeLease', id: 'a', jobs: [{ name: 'done', cost: 200, state: 'completed' }] },
    );
    expect(results.map((r) => r.ok && r.amount)).toEqual([1_000, 100, 400, 0]);
    expect(st.leases).toEqual({});
    expect(st.spentMicroCents).toBe(200);
    expect(st.reservations).toEqual({ running: 300 });
    expect(st.balanceMicroCents).toBe(9_500);
  });

  it('a job is paid for only if the lease is open, pays for it and did not refund it, or its reservation equals its cost', () => {
    const job = (name: string, cost: number, lease?: string): GenerationJob => ({
      apiVersion: 'genjobs.io/v1alpha1',
      kind: 'GenerationJob',
      metadata: { name },
      spec: {
        account: 'acme',
        model: 'm',
        version: 'v',
        input: {},
        costMicroCents: cost,
        ...(lease ? { lease } : {}),
      },
    });
    const acct = account(0, {
      reservations: { cheap: 100 },
      leases: { a: { amount: 500, expiresAt: EXPIRES, refunded: { back: 100 } } },
    });
    const fits = () => true;
    // The same Idempotency-Key with a dearer body: the cheap reservation does not pay for it.
    expect(holding(acct, job('cheap', 100), fits)).toBe('reservation');
    expect(holding(acct, job('cheap', 900), fits)).toBe('none');
    expect(holding(acct, job('in', 100, 'a'), fits)).toBe('lease');
    expect(holding(acct, job('in', 100, 'a'), () => false)).toBe('none');
    expect(holding(acct, job('back', 100, 'a'), fits)).toBe('none');
    expect(holding(acct, job('gone', 100, 'closed'), fits)).toBe('none');
  });

  it('fit: in creation order, then name, each job whose cost and all before it fit the amount', () => {
    const j = (name: string, cost: number, createdAt: number) => ({ name, cost, createdAt });
    const jobs = [j('c', 300, 2_000), j('b', 300, 1_000), j('a', 300, 1_000), j('d', 50, 3_000)];
    expect([...leaseFit(600, jobs)]).toEqual(['a', 'b']);
    // Once one does not fit, none after it does (a cheap later job cannot jump the queue).
    expect([...leaseFit(650, jobs)]).toEqual(['a', 'b']);
    expect([...leaseFit(950, jobs)]).toEqual(['a', 'b', 'c', 'd']);
  });
});
