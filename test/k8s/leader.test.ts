import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { fromKubeConfig, type Kube } from '../../src/k8s/client.ts';
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

describe('leader election follows client-go: local observed time, request timeouts, a renew deadline', () => {
  it('a follower whose clock runs a minute ahead does not take a Lease the leader keeps renewing', async () => {
    const kube = await testNamespace('leader-skew');
    const watch = leadership();
    const a = watch.candidate(kube, 'a');
    a.start();
    await eventually(() => a.isLeader, 5_000, 'a leads');
    // Expiry judged by the holder's renewTime and the follower's own wall clock would call
    // this Lease expired at once: only what the follower itself saw change counts.
    const b = watch.candidate(kube, 'b', { now: () => Date.now() + 60_000 });
    b.start();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(b.isLeader).toBe(false);
    expect(a.isLeader).toBe(true);
    expect(watch.overlaps).toBe(0);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a leader cut off from the apiserver steps down within its renew deadline, before anyone takes over', async () => {
    const kube = await testNamespace('leader-frozen');
    const proxy = await freezableProxy(kube);
    const watch = leadership();
    const a = watch.candidate(proxy.kube, 'a');
    a.start();
    await eventually(() => a.isLeader, 5_000, 'a leads');
    const b = watch.candidate(kube, 'b');
    b.start();
    await new Promise((r) => setTimeout(r, 500));
    // Lease requests now hang with no answer (as with a frozen apiserver or a dropped link).
    const frozenAt = Date.now();
    proxy.freeze();
    await eventually(() => b.isLeader, 15_000, 'b takes over');
    const stoppedA = watch.history.indexOf('-a');
    expect(stoppedA).toBeGreaterThanOrEqual(0);
    expect(stoppedA).toBeLessThan(watch.history.indexOf('+b'));
    expect(watch.stoppedAt.get('a')! - frozenAt).toBeLessThanOrEqual(timings.renewDeadlineMs + 500);
    expect(watch.overlaps).toBe(0);
    await b.stop();
    await a.stop({ release: false });
    proxy.close();
  });

  it('refuses a renew deadline that is not shorter than the lease', async () => {
    const kube = await testNamespace('leader-bad');
    expect(
      () =>
        new LeaderElector(kube, {
          leaseName: 'x',
          identity: 'a',
          log: silentLogger(),
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
          onStartedLeading: () => {},
          onStoppedLeading: () => {},
        }),
    ).toThrow(/renew deadline/);
  });
});

/** Candidates that record who leads when, and count moments with two leaders. */
function leadership() {
  const leading = new Set<string>();
  const history: string[] = [];
  const stoppedAt = new Map<string, number>();
  const w = {
    overlaps: 0,
    history,
    stoppedAt,
    candidate: (kube: Kube, identity: string, extra: { now?: () => number } = {}) =>
      new LeaderElector(kube, {
        leaseName: 'genjobs-controller',
        identity,
        log: silentLogger(),
        ...timings,
        ...extra,
        onStartedLeading: () => {
          if (leading.size > 0) w.overlaps++;
          leading.add(identity);
          history.push(`+${identity}`);
        },
        onStoppedLeading: () => {
          leading.delete(identity);
          stoppedAt.set(identity, Date.now());
          history.push(`-${identity}`);
        },
      }),
  };
  return w;
}

/**
 * A TCP relay to the apiserver that can be frozen: from then on nothing passes either way
 * and new connections are accepted but never answered, as when the apiserver is stopped.
 */
async function freezableProxy(kube: Kube) {
  const cluster = kube.kc.getCurrentCluster()!;
  const target = new URL(cluster.server);
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  const server = createServer((client) => {
    client.on('error', () => {});
    if (frozen) return;
    const upstream = connect(Number(target.port), target.hostname);
    upstream.on('error', () => {});
    client.pipe(upstream).pipe(client);
    pairs.add([client, upstream]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, server: `https://127.0.0.1:${port}` }],
    users: kube.kc.users,
    contexts: kube.kc.contexts,
    currentContext: kube.kc.currentContext,
  });
  return {
    kube: fromKubeConfig(kc, kube.namespace),
    freeze() {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      server.close();
    },
  };
}
