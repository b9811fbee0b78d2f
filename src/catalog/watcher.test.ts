import type { V1ConfigMap as ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Informer } from '../k8s/informer.ts';
import { silentLogger } from '../log.ts';
import { defaultCatalogConfigMap } from './install.ts';
import { CatalogWatcher } from './watcher.ts';

/** An informer already synced on the given ConfigMaps. */
const synced = (configMaps: ConfigMap[]) =>
  ({
    on: () => undefined,
    start: async () => undefined,
    waitForSync: async () => undefined,
    stop: async () => undefined,
    synced: true,
    list: () => configMaps,
  }) as unknown as Informer<ConfigMap>;

describe('CatalogWatcher', () => {
  it('starting with one ConfigMap rejected serves the others and reports the rejection', async () => {
    const broken = {
      metadata: { name: 'catalog-broken' },
      data: { 'x.yaml': 'models:\n  - provider: nobody\n' },
    };
    const results: string[] = [];
    const watcher = new CatalogWatcher({
      informer: synced([await defaultCatalogConfigMap(), broken]),
      log: silentLogger(),
      onReload: (result) => results.push(result),
    });
    await watcher.start();
    expect(watcher.current?.variantsBySlug.has('genjobs/reference-image/text-to-image')).toBe(true);
    expect(results).toEqual(['error', 'ok']);
  });
});
