import { beforeAll, describe, expect, it } from 'vitest';
import type { Kube } from '../../src/k8s/client.ts';
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
});
