import { afterAll, beforeAll, expect, it } from 'vitest';
import { MERGE_PATCH } from '../../src/k8s/client.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('pod-refused');
});
afterAll(async () => {
  await s?.stop();
});

it('a worker Pod the apiserver refuses (a ResourceQuota) is said once on the job, which runs once the quota goes', async () => {
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
  const key = await s.account({ name: 'acme' });
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: 'under a quota' } },
  });
  const { jobId } = (await res.json()) as { jobId: string };
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
  expect((await s.r.jobs.get(jobId))?.status?.phase ?? 'pending').toBe('pending');

  await s.kube.core.deleteNamespacedResourceQuota({ name: 'worker-pods', namespace: s.kube.namespace });
  await eventually(
    async () => (await s.r.jobs.get(jobId))?.status?.phase === 'completed',
    120_000,
    'the job run',
  );
});
