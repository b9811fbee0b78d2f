import { describe, expect, it } from 'vitest';
import { LeaderElector } from '../../src/k8s/leader.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually, testNamespace } from '../support/cluster.ts';

const timings = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 250 };

describe('leader election on a real Lease', () => {
  it('never lets two candidates lead at once, and the other takes over within the lease after a crash', async () => {
    const kube = await testNamespace('leader');
    const leading = new Set<string>();
    const history: string[] = [];
    let overlaps = 0;
    const candidate = (identity: string) =>
      new LeaderElector(kube, {
        leaseName: 'genjobs-controller',
        identity,
        log: silentLogger(),
        ...timings,
        onStartedLeading: () => {
          // The safety property: never two leaders at once. (A leader that misses its renew
          // deadline on a loaded machine steps down and may lead again later: that is fine.)
          if (leading.size > 0) overlaps++;
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
    await eventually(() => (leading.size === 1 ? [...leading][0] : undefined), 5_000, 'a leader');
    // Several renew periods later there is still at most one leader.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(leading.size).toBeLessThanOrEqual(1);
    const current = await eventually(
      () => (leading.size === 1 ? [...leading][0] : undefined),
      5_000,
      'a leader',
    );

    const [leader, follower] = current === 'a' ? [a, b] : [b, a];
    const crashedAt = Date.now();
    await leader.stop({ release: false });
    await eventually(() => follower.isLeader, 10_000, 'takeover');
    const takeoverMs = Date.now() - crashedAt;
    // The lease (4 s) must run out first, and then a retry (every 0.25 s) takes it.
    expect(takeoverMs).toBeGreaterThanOrEqual(1_000);
    expect(takeoverMs).toBeLessThanOrEqual(timings.leaseDurationMs + 3_000);
    expect(overlaps).toBe(0);
    expect(history).toContain(`+${follower === a ? 'a' : 'b'}`);
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
