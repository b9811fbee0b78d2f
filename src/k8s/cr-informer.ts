import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { Informer } from './informer.ts';
import type { CustomResources } from './resources.ts';
import type { GenjobsResource } from './types.ts';

/** Informer over one genjobs kind: list and watch of the kind's collection in the namespace. */
export function crInformer<T extends GenjobsResource>(
  kube: Kube,
  r: CustomResources<T>,
  log: Logger,
): Informer<T> {
  return new Informer<T>(kube, {
    path: r.path,
    list: async () => {
      const page = await r.list();
      return { items: page.items, metadata: { resourceVersion: page.resourceVersion } };
    },
    log: log.child({ informer: r.plural }),
  });
}
