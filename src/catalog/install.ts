import type { ConfigMap } from '../k8s/configmaps.ts';
import { readDefaultCatalogSource } from './load.ts';
import { CATALOG_LABEL } from './watcher.ts';

/** The default catalog as the ConfigMap dev mode installs (the Helm chart renders the same). */
export async function defaultCatalogConfigMap(name = 'genjobs-catalog-default'): Promise<ConfigMap> {
  const source = await readDefaultCatalogSource();
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { [CATALOG_LABEL]: 'true', 'app.kubernetes.io/part-of': 'genjobs' } },
    data: source.documents,
  };
}
