import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Account, GenerationJob, JobPhase } from '../../src/k8s/types.ts';
import {
  archivedAndGone,
  attemptsRanOnce,
  cancelsHeld,
  everyJobTerminal,
  ledgersWhole,
  paidPending,
  progressOf,
  webhooksDelivered,
} from './checks.ts';
import type { Observed } from './load.ts';

// The crash suite's checks must be able to fail: each is fed a state that breaks it.
const job = (name: string, phase: JobPhase, extra: Partial<GenerationJob['spec']> = {}, refunded?: number) =>
  ({
    apiVersion: 'genjobs.io/v1alpha1',
    kind: 'GenerationJob',
    metadata: { name },
    spec: { account: 'a', model: 'm', version: 'v1.0', input: {}, costMicroCents: 100, ...extra },
    status: { phase, ...(refunded !== undefined ? { refundedMicroCents: refunded } : {}) },
  }) as GenerationJob;
const account = (status: Account['status']) =>
  ({ metadata: { name: 'a' }, spec: { plan: 'pro', grantedMicroCents: 1_000 }, status }) as Account;
const observed = (o: Partial<Observed> = {}): Observed => ({
  submitted: new Map(),
  cancelled: new Map(),
  outcomes: new Map(),
  unanswered: 0,
  ...o,
});

describe('crash suite checks', () => {
  it('a finished job missing from the archive, or finished and still a resource, is a violation', () => {
    const live = [job('kept', 'completed'), job('running', 'processing')];
    const jobs = [...live, job('lost', 'failed'), job('moved', 'completed')];
    const r = archivedAndGone(jobs, live, new Set(['kept', 'moved']));
    expect(r.checked).toBe(3);
    expect(r.violations).toEqual([
      'lost (failed) is not in the archive',
      'kept (completed at undefined) is still a resource',
    ]);
    expect(archivedAndGone([job('moved', 'completed')], [], new Set(['moved'])).violations).toEqual([]);
  });

  it('a job still processing, or answered 200 and gone, is a violation', () => {
    const o = observed({ submitted: new Map([['gone', { account: 'a', cost: 100, webhook: false }]]) });
    const r = everyJobTerminal([job('j1', 'processing'), job('j2', 'completed')], o);
    expect(r.violations).toEqual(['j1 is still processing', 'gone was answered 200 and no longer exists']);
  });

  it('money created, money still held, or a failed job charged is a violation', () => {
    const whole = account({ balanceMicroCents: 900, appliedGrantMicroCents: 1_000, spentMicroCents: 100 });
    expect(ledgersWhole([whole], [job('j', 'completed')]).violations).toEqual([]);
    const created = account({
      balanceMicroCents: 1_000,
      appliedGrantMicroCents: 1_000,
      spentMicroCents: 100,
    });
    expect(ledgersWhole([created], [job('j', 'completed')]).violations).toEqual([
      'a: imbalance 100 micro-cents',
    ]);
    const held = account({ balanceMicroCents: 900, appliedGrantMicroCents: 1_000, reservations: { j: 100 } });
    expect(ledgersWhole([held], []).violations).toEqual([
      'a: 100 micro-cents still held with every job finished',
    ]);
    expect(ledgersWhole([whole], [job('j', 'failed')]).violations).toEqual([
      'a: spent 100, completed jobs cost 0',
    ]);
  });

  it('a cancel answered 200 whose job ran, or was refunded less, is a violation', () => {
    const o = observed({
      cancelled: new Map([
        ['x', 100],
        ['y', 100],
        ['z', 100],
      ]),
    });
    const r = cancelsHeld(
      [job('x', 'completed'), job('y', 'cancelled', {}, 50), job('z', 'cancelled', {}, 100)],
      o,
    );
    expect(r.violations).toEqual([
      'x: cancel answered 200, job is completed',
      'y: refund 50 of cost 100, answered 100',
    ]);
  });

  it('a worker Pod started twice is a violation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chaos-checks-'));
    const line = (pod: string) => JSON.stringify({ pod, msg: 'container started' });
    await writeFile(
      join(dir, 'agent.log'),
      [line('gj-a-1'), line('gj-a-2'), line('gj-a-1'), '{"pod":"gj-b'].join('\n'),
    );
    const r = await attemptsRanOnce(join(dir, 'agent.log'));
    await rm(dir, { recursive: true });
    expect(r.violations).toEqual(['gj-a-1 started 2 times']);
  });

  it('a webhook missing, with two ids, or of the wrong type is a violation', () => {
    // As the history keeps it: the origin only.
    const hook = (_n: string) => ({ webhookUrl: 'https://127.0.0.1:1' });
    const got = (n: string, id: string, type: string) => ({
      path: `/hook/${n}`,
      headers: { 'webhook-id': id },
      body: JSON.stringify({ type, data: { jobId: n } }),
      at: 0,
    });
    const jobs = [
      job('a', 'completed', hook('a')),
      job('b', 'failed', hook('b')),
      job('c', 'completed', hook('c')),
    ];
    const r = webhooksDelivered(jobs, [
      got('b', 'm1', 'job.failed'),
      got('b', 'm2', 'job.failed'),
      got('c', 'm3', 'job.failed'),
    ]);
    expect(r.violations).toEqual([
      'a: completed, no webhook delivered',
      'b: 2 webhook-ids over 2 deliveries',
      'c: completed, webhook said job.failed',
    ]);
  });

  it('only pending jobs whose money is held count as waiting to run; starts and ends are progress', () => {
    const waiting = (name: string, extra: Partial<GenerationJob['spec']> = {}) => {
      const j = job(name, 'pending', extra);
      j.status = {};
      return j;
    };
    const leased = (name: string) => waiting(name, { lease: 'L' });
    const jobs = [waiting('reserved'), waiting('unpaid'), leased('in-lease'), leased('beyond-lease')];
    jobs[3]!.metadata.creationTimestamp = '2026-01-01T00:00:01Z';
    jobs[2]!.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    const a = account({
      balanceMicroCents: 700,
      appliedGrantMicroCents: 1_000,
      reservations: { reserved: 100 },
      leases: { L: { amount: 150, expiresAt: '2026-01-01T00:01:00Z' } },
    });
    expect(paidPending([...jobs, job('running', 'processing')], [a]).map((j) => j.metadata.name)).toEqual([
      'reserved',
      'in-lease',
    ]);
    const before = progressOf(jobs);
    expect(progressOf(jobs)).toBe(before);
    jobs[0]!.status = { phase: 'processing', attempts: 1 };
    expect(progressOf(jobs)).not.toBe(before);
  });
});
