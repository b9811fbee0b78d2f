import { afterAll, beforeAll, expect, it } from 'vitest';
import { MERGE_PATCH } from '../../src/k8s/client.ts';
import { eventually } from '../support/cluster.ts';
import { memoryLogger } from '../support/service.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
const logged = memoryLogger();
beforeAll(async () => {
  s = await startTestStack('pod-refused', { logger: logged.log });
});
afterAll(async () => {
  await s?.stop();
});

it('a worker Pod the apiserver refuses (a ResourceQuota) is said once on the job, which shows no estimate meanwhile and runs once the quota goes', async () => {
  // No quota controller runs here: its usage is written by hand, as it reports a full quota.
  await s.kube.core.createNamespacedResourceQuota({
    namespace: s.kube.namespace,
    body: { metadata: { name: 'worker-pods' }, spec: { hard: { pods: '1' } } },
  });
  await s.kube.core.patchNamespacedResourceQuotaStatus(
    {
      name: 'worker-pods',
      namespace: s.kube.namespace,
      body: { status: { hard: { pods: '1' }, used: { pods: '1' } } },
    },
    MERGE_PATCH,
  );
  // The free plan allows two unfinished jobs: the second submit makes the limit's 429.
  const key = await s.account({ name: 'acme', plan: 'free' });
  const submit = (prompt: string) =>
    s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: 'genjobs/reference-image/text-to-image', input: { prompt } },
    });
  const { jobId } = (await (await submit('under a quota')).json()) as { jobId: string };
  const refusals = async () =>
    (
      await s.kube.core.listNamespacedEvent({
        namespace: s.kube.namespace,
        fieldSelector: `involvedObject.name=${jobId},reason=PodRefused`,
      })
    ).items;
  const [event] = await eventually(async () => {
    const items = await refusals();
    return items.length > 0 && items;
  }, 20_000);
  expect(event?.type).toBe('Warning');
  expect(event?.message).toMatch(/^the apiserver refused its worker Pod \(403\): .*worker-pods/);
  // The key backs off and tries again: the same reason is not said again.
  await new Promise((r) => setTimeout(r, 3_000));
  const again = await refusals();
  expect(again).toHaveLength(1);
  expect(again[0]?.count ?? 1).toBe(1);
  const waiting = await s.r.jobs.get(jobId);
  expect(waiting?.status?.phase ?? 'pending').toBe('pending');
  expect(waiting?.status?.conditions?.find((c) => c.type === 'PodRefused')).toMatchObject({
    status: 'True',
    reason: 'Forbidden',
  });
  // Its record keeps a place in the queue but no estimate: when the cluster makes room is not known.
  const record = await eventually(async () => {
    const r = (await (await s.call(`/v1/jobs/${jobId}`, { key })).json()) as Record<string, unknown>;
    return !('estimatedCompletionTime' in r) && r;
  }, 10_000);
  expect(record).toMatchObject({ status: 'pending', queuePosition: 0 });
  // The plan's limit, reached while nothing can start, does not say "try again in 1 s".
  const second = (await (await submit('the second')).json()) as { jobId: string };
  await eventually(async () => {
    const job = await s.r.jobs.get(second.jobId);
    return job?.status?.conditions?.some((c) => c.type === 'PodRefused' && c.status === 'True');
  }, 20_000);
  await eventually(async () => {
    const r = (await (await s.call(`/v1/jobs/${second.jobId}`, { key })).json()) as Record<string, unknown>;
    return !('estimatedCompletionTime' in r);
  }, 10_000);
  const busy = await submit('one too many');
  expect(busy.status).toBe(429);
  expect(Number(busy.headers.get('retry-after'))).toBe(60);

  await s.kube.core.deleteNamespacedResourceQuota({ name: 'worker-pods', namespace: s.kube.namespace });
  // Its outputs' upload grant outlives the longest its Pod may wait for a node (the Pod start
  // timeout, 30 minutes) and its run with ten minutes to spare, counted from the Pod's making.
  const [pod] = await eventually(async () => {
    const { items } = await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `genjobs.io/job=${jobId}`,
    });
    return items.length > 0 && items;
  }, 60_000);
  const grant = pod!.spec!.containers[0]!.env!.find((e) => e.name === 'GENJOBS_BLOB_GRANT')!.value!;
  const expires = Number(grant.split('.')[2]) * 1000;
  const made = new Date(pod!.metadata!.creationTimestamp!).getTime();
  expect(expires - made).toBeGreaterThanOrEqual((30 + 10) * 60_000);
  const done = await eventually(
    async () => {
      const job = await s.r.jobs.get(jobId);
      return job?.status?.phase === 'completed' && job;
    },
    120_000,
    'the job run',
  );
  expect(done.status?.conditions?.find((c) => c.type === 'PodRefused')).toMatchObject({
    status: 'False',
    reason: 'PodCreated',
  });
});

it('a job a full quota refused tries again as soon as the quota has room, not when its backoff comes round', async () => {
  const quota = 'worker-pods-full';
  const setUsed = (used: string) =>
    s.kube.core.patchNamespacedResourceQuotaStatus(
      {
        name: quota,
        namespace: s.kube.namespace,
        body: { status: { hard: { pods: '1' }, used: { pods: used } } },
      },
      MERGE_PATCH,
    );
  await s.kube.core.createNamespacedResourceQuota({
    namespace: s.kube.namespace,
    body: { metadata: { name: quota }, spec: { hard: { pods: '1' } } },
  });
  await setUsed('1');
  const key = await s.account({ name: 'bravo' });
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: 'waits for room' } },
  });
  const { jobId } = (await res.json()) as { jobId: string };
  await eventually(async () => {
    const job = await s.r.jobs.get(jobId);
    return job?.status?.conditions?.some((c) => c.type === 'PodRefused' && c.status === 'True');
  }, 20_000);
  // Refused again and again meanwhile, its key's backoff (5 ms doubling per refusal) grows past
  // 20 s: after 25 s its next try is about 16 s away, longer than the wait below.
  await new Promise((r) => setTimeout(r, 25_000));
  const podsOf = async () =>
    (
      await s.kube.core.listNamespacedPod({
        namespace: s.kube.namespace,
        labelSelector: `genjobs.io/job=${jobId}`,
      })
    ).items;
  expect(await podsOf()).toHaveLength(0);

  // What the quota controller writes when a Pod of the namespace has gone.
  const mark = logged.lines.length;
  await setUsed('0');
  await eventually(async () => (await podsOf()).length > 0, 10_000, 'its worker Pod');
  const wake = logged.lines
    .slice(mark)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => String(l.msg).startsWith('a ResourceQuota changed'));
  expect(wake).toMatchObject({ quota, change: 'update' });
  expect(wake?.jobs).toBeGreaterThanOrEqual(1);
  await s.kube.core.deleteNamespacedResourceQuota({ name: quota, namespace: s.kube.namespace });
  await eventually(
    async () => (await s.r.jobs.get(jobId))?.status?.phase === 'completed',
    120_000,
    'the job run',
  );
}, 180_000);
