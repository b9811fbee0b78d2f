import { describe, expect, it } from 'vitest';
import { LeaderElector } from '../../src/k8s/leader.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually, testNamespace } from '../support/cluster.ts';

const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

describe('leader election on a real Lease', () => {
  it('lets exactly one of two candidates lead, and the other take over within the lease after a crash', async () => {
    const kube = await testNamespace('leader');
    const leading = new Set<string>();
    const history: string[] = [];
    const candidate = (identity: string) =>
      new LeaderElector(kube, {
        leaseName: 'genjobs-controller',
        identity,
        log: silentLogger(),
        ...timings,
        onStartedLeading: () => {
          leading.add(identity);
          history.push(`+${identity}`);
        },
        onStoppedLeading: () => {
          leading.delete(identity);
          history.push(`-${identity}`);
        },
      });
    const a = candidate('a');
    const b = candidate('b');
    a.start();
    b.start();
    const first = await eventually(
      () => (leading.size === 1 ? [...leading][0] : undefined),
      5_000,
      'a leader',
    );
    // Several renew periods later there is still exactly one leader, and the same one.
    await new Promise((r) => setTimeout(r, 1_500));
    expect([...leading]).toEqual([first]);
    expect(a.isLeader !== b.isLeader).toBe(true);

    const [leader, follower] = first === 'a' ? [a, b] : [b, a];
    const crashedAt = Date.now();
    await leader.stop({ release: false });
    await eventually(() => follower.isLeader, 6_000, 'takeover');
    const takeoverMs = Date.now() - crashedAt;
    // The lease (3 s) must run out first, and then the next retry (0.25 s) takes it.
    expect(takeoverMs).toBeGreaterThanOrEqual(1_000);
    expect(takeoverMs).toBeLessThanOrEqual(timings.leaseDurationMs + 1_000);
    expect(history.filter((h) => h.startsWith('+'))).toHaveLength(2);
    await follower.stop();
  });

  it('hands over at once when the leader releases the Lease on a clean stop', async () => {
    const kube = await testNamespace('leader-release');
    const make = (identity: string) =>
      new LeaderElector(kube, {
        leaseName: 'lease',
        identity,
        log: silentLogger(),
        ...timings,
        onStartedLeading: () => {},
        onStoppedLeading: () => {},
      });
    const a = make('a');
    a.start();
    await eventually(() => a.isLeader, 5_000, 'a leads');
    const b = make('b');
    b.start();
    await new Promise((r) => setTimeout(r, 500));
    expect(b.isLeader).toBe(false);
    const stoppedAt = Date.now();
    await a.stop();
    await eventually(() => b.isLeader, 5_000, 'b takes over');
    expect(Date.now() - stoppedAt).toBeLessThan(timings.leaseDurationMs);
    await b.stop();
  });
});
