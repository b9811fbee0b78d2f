import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { isAlreadyExists, statusCode } from './errors.ts';
import { Informer } from './informer.ts';

export type ConfigMap = V1ConfigMap;

/** An informer over the namespace's ConfigMaps that carry a label selector. */
export function configMapInformer(kube: Kube, labelSelector: string, log: Logger): Informer<ConfigMap> {
  return new Informer<ConfigMap>(kube, {
    path: `/api/v1/namespaces/${kube.namespace}/configmaps`,
    labelSelector,
    list: () => kube.core.listNamespacedConfigMap({ namespace: kube.namespace, labelSelector }),
    log,
  });
}

/** Creates the ConfigMap, or replaces its data and labels when it exists. */
export async function applyConfigMap(kube: Kube, cm: ConfigMap): Promise<void> {
  const name = cm.metadata?.name ?? '';
  try {
    await kube.core.createNamespacedConfigMap({ namespace: kube.namespace, body: cm });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const current = await kube.core.readNamespacedConfigMap({ name, namespace: kube.namespace });
    await kube.core.replaceNamespacedConfigMap({
      name,
      namespace: kube.namespace,
      body: { ...cm, metadata: { ...cm.metadata, resourceVersion: current.metadata?.resourceVersion } },
    });
  }
}

/**
 * Creates the ConfigMap unless one of its name exists; answers the one that exists (left
 * as it is: someone may have edited it), or undefined when it was created. Read first: a
 * ResourceQuota that is full refuses even the create of a ConfigMap that exists (admission
 * comes before the store), and one that exists needs no room.
 */
export async function createConfigMapIfMissing(kube: Kube, cm: ConfigMap): Promise<ConfigMap | undefined> {
  const read = () =>
    kube.core.readNamespacedConfigMap({ name: cm.metadata?.name ?? '', namespace: kube.namespace });
  const existing = await read().catch((err: unknown) => {
    if (statusCode(err) === 404) return undefined;
    throw err;
  });
  if (existing) return existing;
  try {
    await kube.core.createNamespacedConfigMap({ namespace: kube.namespace, body: cm });
    return undefined;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return read();
  }
}
