import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Kube } from '../../src/k8s/client.ts';
import { createPod, deletePod, getPod } from '../../src/k8s/pods.ts';
import { resources } from '../../src/k8s/resources.ts';
import { testNamespace } from '../support/cluster.ts';

// Every new connection to the apiserver is a TLS handshake on both sides. undici closes an
// HTTP/1.1 connection after a DELETE that carries a body, so the hot paths' deletes must
// not cost one each (a controller profile once spent a quarter of its time in handshakes).
let connects = 0;
const onConnect = () => {
  connects++;
};
beforeAll(() => dc.subscribe('undici:client:connected', onConnect));
afterAll(() => dc.unsubscribe('undici:client:connected', onConnect));

const pod = (name: string) => ({
  metadata: { name },
  spec: { containers: [{ name: 'worker', image: 'genjobs-worker' }] },
});

it('pod and job deletes, with and without preconditions, reuse the open connections', async () => {
  const kube: Kube = await testNamespace('connections');
  const r = resources(kube);
  // Warm up: the connections a first call of each kind opens.
  await createPod(kube, pod('warm'));
  await deletePod(kube, 'warm', { uid: (await getPod(kube, 'warm'))?.metadata?.uid, gracePeriodSeconds: 0 });
  connects = 0;
  for (let i = 0; i < 10; i++) {
    await createPod(kube, pod(`p${i}`));
    // One in two with a uid precondition (a body), the other with the grace alone (the
    // uid read through client-node's own connections, which this test does not count).
    const uid = i % 2 ? (await getPod(kube, `p${i}`))?.metadata?.uid : undefined;
    expect(await deletePod(kube, `p${i}`, { uid, gracePeriodSeconds: 0 })).toBe(true);
    const job = await r.jobs.create({
      metadata: { name: `j${i}` },
      spec: { account: 'a', model: 'a/b/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
    });
    expect(
      await r.jobs.delete(`j${i}`, { uid: job.metadata.uid, resourceVersion: job.metadata.resourceVersion }),
    ).toBe(true);
  }
  expect(connects).toBeLessThanOrEqual(1);
  // The precondition still holds: a delete naming another incarnation deletes nothing.
  await createPod(kube, pod('kept'));
  expect(await deletePod(kube, 'kept', { uid: 'not-this-one', gracePeriodSeconds: 0 })).toBe(false);
});
