import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/main.ts';
import { podInformer } from '../../src/k8s/pods.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
let second: RunningController;
beforeAll(async () => {
  s = await startTestStack('two-controllers', { slots: 4, env: { GENJOBS_LEADER_ELECTION: 'true' } });
  second = await s.startController();
});
afterAll(async () => {
  await second?.stop();
  await s?.stop();
});

it('two controllers running at once never create two Pods for one job, and the follower takes over', async () => {
  const created = new Map<string, string[]>();
  const pods = podInformer(s.kube, { log: silentLogger() });
  pods.on((type, pod) => {
    if (type !== 'add') return;
    const job = pod.metadata?.labels?.['genjobs.io/job'] ?? '';
    created.set(job, [...(created.get(job) ?? []), pod.metadata?.name ?? '']);
  });
  await pods.start();
  await eventually(() => s.controller.isLeader() !== second.isLeader(), 10_000, 'one leader');

  const key = await s.account({ name: 'acme', plan: 'enterprise' });
  const submit = async () =>
    (
      await (
        await s.call('/v1/jobs/submit', {
          method: 'POST',
          key,
          json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: 'twice?' } },
        })
      ).json()
    ).jobId as string;
  const ids = await Promise.all(Array.from({ length: 8 }, submit));
  const done = (id: string) =>
    eventually(async () => (await s.r.jobs.get(id))?.status?.phase === 'completed', 60_000, `job ${id}`);
  // Under load: the leader stops while those jobs are still queued or running (it drains its
  // work, then releases the Lease); the other replica takes them over, and new work too.
  await eventually(async () => (await s.r.jobs.get(ids[0]!))?.status?.phase !== undefined, 30_000, 'started');
  const [leader, follower] = s.controller.isLeader() ? [s.controller, second] : [second, s.controller];
  const unfinished = (await Promise.all(ids.map((id) => s.r.jobs.get(id)))).filter(
    (j) => j?.status?.phase !== 'completed',
  ).length;
  expect(unfinished).toBeGreaterThan(0);
  await leader.stop();
  await eventually(() => follower.isLeader(), 20_000, 'the follower leads');
  const later = await Promise.all(Array.from({ length: 4 }, submit));
  await Promise.all([...ids, ...later].map(done));

  await pods.stop();
  for (const id of [...ids, ...later]) expect(created.get(id)).toEqual([`gj-${id}-1`]);
  // Whichever controller is stopped last in afterAll, the stack must not stop the stopped one twice.
  if (leader === s.controller) s.controller = follower;
  else second = follower;
});
