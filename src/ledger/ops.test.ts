import { describe, expect, it } from 'vitest';
import type { Account } from '../k8s/types.ts';
import { apply, imbalance, type LedgerOp, normalized, sameLedger } from './ops.ts';

const account = (granted: number, status: Account['status'] = {}): Account => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'Account',
  metadata: { name: 'acme' },
  spec: { plan: 'pro', grantedMicroCents: granted },
  status,
});
const reserve = (
  jobId: string,
  cost: number,
  maxConcurrent = 10,
  finished?: (jobId: string) => boolean,
): LedgerOp => ({ kind: 'reserve', jobId, cost, maxConcurrent, finished });

describe('ledger operations', () => {
  it('applies a new grant exactly once, however often the status is normalized', () => {
    const first = normalized(account(1_000));
    expect(first.balanceMicroCents).toBe(1_000);
    const again = normalized(account(1_000, first));
    expect(again.balanceMicroCents).toBe(1_000);
    const raised = normalized(account(1_500, again));
    expect(raised.balanceMicroCents).toBe(1_500);
    expect(raised.appliedGrantMicroCents).toBe(1_500);
  });

  it('finds nothing to write in a ledger that a lease was just taken from', () => {
    // The lease as the api wrote it and the apiserver gives it back: no refunds yet.
    const taken = normalized(account(1_000));
    apply(taken, {
      kind: 'lease',
      id: 'l1',
      demand: 300,
      headroom: 0,
      min: 1,
      expiresAt: '2030-01-01T00:00:00Z',
    });
    const stored: Account['status'] = JSON.parse(JSON.stringify(taken));
    // The Account reconciler's sync of that status changes nothing, so it writes nothing.
    expect(sameLedger(stored, normalized(account(1_000, stored)))).toBe(true);
  });

  it('does not apply a lowered grant', () => {
    const s = normalized(
      account(100, { balanceMicroCents: 0, appliedGrantMicroCents: 500, spentMicroCents: 500 }),
    );
    expect(s.balanceMicroCents).toBe(0);
    expect(s.appliedGrantMicroCents).toBe(500);
  });

  it.each<[string, LedgerOp[], number[], string[]]>([
    ['reserve within balance', [reserve('a', 400)], [600], []],
    ['reserve beyond balance', [reserve('a', 1_001)], [1_000], ['INSUFFICIENT_BALANCE']],
    ['reserve exactly the balance', [reserve('a', 1_000)], [0], []],
    [
      'concurrency limit',
      [reserve('a', 1, 2), reserve('b', 1, 2), reserve('c', 1, 2)],
      [998],
      ['CONCURRENT_JOBS_EXCEEDED'],
    ],
    [
      'finished jobs awaiting settlement do not count toward the limit',
      [reserve('a', 1, 2), reserve('b', 1, 2), reserve('c', 1, 2, (id) => id === 'a')],
      [997],
      [],
    ],
    ['duplicate reserve is free', [reserve('a', 300), reserve('a', 300)], [700], []],
    ['refund gives it back', [reserve('a', 300), { kind: 'refund', jobId: 'a' }], [1_000], []],
    [
      'double refund refunds once',
      [reserve('a', 300), { kind: 'refund', jobId: 'a' }, { kind: 'refund', jobId: 'a' }],
      [1_000],
      [],
    ],
    [
      'charge keeps it',
      [reserve('a', 300), { kind: 'charge', jobId: 'a' }, { kind: 'refund', jobId: 'a' }],
      [700],
      [],
    ],
    [
      'settling an unknown job does nothing',
      [
        { kind: 'refund', jobId: 'x' },
        { kind: 'charge', jobId: 'y' },
      ],
      [1_000],
      [],
    ],
  ])('%s', (_name, ops, [balance], refusals) => {
    const s = normalized(account(1_000));
    const results = ops.map((op) => apply(s, op));
    expect(s.balanceMicroCents).toBe(balance);
    expect(results.flatMap((r) => (r.ok ? [] : [r.reason]))).toEqual(refusals);
    expect(imbalance(s)).toBe(0);
    expect(s.heldMicroCents).toBe(1_000 - s.balanceMicroCents - s.spentMicroCents);
  });

  it('reports the amounts moved by settlement', () => {
    const s = normalized(account(1_000));
    apply(s, reserve('a', 250));
    expect(apply(s, { kind: 'refund', jobId: 'a' })).toEqual({ ok: true, amount: 250 });
    expect(apply(s, { kind: 'refund', jobId: 'a' })).toEqual({ ok: true, amount: 0 });
    apply(s, reserve('b', 100));
    expect(apply(s, { kind: 'charge', jobId: 'b' })).toEqual({ ok: true, amount: 100 });
    expect(s.spentMicroCents).toBe(100);
    expect(s.activeJobs).toBe(0);
  });
});
