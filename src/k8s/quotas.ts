import type { V1ResourceQuota } from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { Informer } from './informer.ts';

export type ResourceQuota = V1ResourceQuota;

/**
 * An informer over the namespace's ResourceQuotas. The controller watches them for one
 * thing: a worker Pod a full quota refused may fit once a quota's usage or limits change.
 */
export function resourceQuotaInformer(kube: Kube, log: Logger): Informer<ResourceQuota> {
  const { namespace } = kube;
  return new Informer<ResourceQuota>(kube, {
    path: `/api/v1/namespaces/${namespace}/resourcequotas`,
    list: async () => {
      const page = await kube.core.listNamespacedResourceQuota({ namespace });
      return {
        // Quantities and times in their wire form, as the watch delivers them.
        items: page.items.map((q) => JSON.parse(JSON.stringify(q)) as ResourceQuota),
        metadata: { resourceVersion: page.metadata?.resourceVersion },
      };
    },
    log,
  });
}
