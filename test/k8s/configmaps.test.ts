import { beforeAll, describe, expect, it } from 'vitest';
import type { Kube } from '../../src/k8s/client.ts';
import { MERGE_PATCH } from '../../src/k8s/client.ts';
import { createConfigMapIfMissing } from '../../src/k8s/configmaps.ts';
import { testNamespace } from '../support/cluster.ts';

let kube: Kube;
beforeAll(async () => {
  kube = await testNamespace('configmaps');
});

describe('createConfigMapIfMissing (dev mode installs the default catalog with it)', () => {
  it('creates a missing ConfigMap, and leaves an edited one as it is, answering it', async () => {
    const shipped = { metadata: { name: 'catalog' }, data: { 'models.yaml': 'price: 2' } };
    expect(await createConfigMapIfMissing(kube, shipped)).toBeUndefined();
    const read = () => kube.core.readNamespacedConfigMap({ name: 'catalog', namespace: kube.namespace });
    expect((await read()).data).toEqual({ 'models.yaml': 'price: 2' });
    const edited = await read();
    await kube.core.replaceNamespacedConfigMap({
      name: 'catalog',
      namespace: kube.namespace,
      body: { ...edited, data: { 'models.yaml': 'price: 3' } },
    });
    const kept = await createConfigMapIfMissing(kube, shipped);
    expect(kept?.data).toEqual({ 'models.yaml': 'price: 3' });
    expect((await read()).data).toEqual({ 'models.yaml': 'price: 3' });
  });

  it('answers an existing one while a ResourceQuota on ConfigMaps is full (dev mode starting again)', async () => {
    const shipped = { metadata: { name: 'under-quota' }, data: { 'models.yaml': 'price: 2' } };
    expect(await createConfigMapIfMissing(kube, shipped)).toBeUndefined();
    // No quota controller runs here: its usage is written by hand, as it reports a full quota.
    await kube.core.createNamespacedResourceQuota({
      namespace: kube.namespace,
      body: { metadata: { name: 'configmaps' }, spec: { hard: { configmaps: '1' } } },
    });
    await kube.core.patchNamespacedResourceQuotaStatus(
      {
        name: 'configmaps',
        namespace: kube.namespace,
        body: { status: { hard: { configmaps: '1' }, used: { configmaps: '1' } } },
      },
      MERGE_PATCH,
    );
    try {
      // The quota refuses a create, even of a name that exists.
      await expect(
        kube.core.createNamespacedConfigMap({ namespace: kube.namespace, body: shipped }),
      ).rejects.toMatchObject({ code: 403 });
      expect((await createConfigMapIfMissing(kube, shipped))?.data).toEqual(shipped.data);
    } finally {
      await kube.core.deleteNamespacedResourceQuota({ name: 'configmaps', namespace: kube.namespace });
    }
  });
});
