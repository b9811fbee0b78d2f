import type { V1ConfigMap as ConfigMap } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Informer } from '../k8s/informer.ts';
import { loggerOptions, silentLogger } from '../log.ts';
import { defaultCatalogConfigMap } from './install.ts';
import { aModel, source } from './test-fixtures.ts';
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

  it('says in its log when a model leaves the catalog, for how long its jobs wait, and when it is back', async () => {
    const extra: ConfigMap = {
      metadata: { name: 'catalog-extra' },
      data: source('catalog-extra', { models: [aModel('genjobs', 'extra').build()] }).documents,
    };
    let configMaps = [await defaultCatalogConfigMap(), extra];
    const informer = { ...synced([]), list: () => configMaps } as unknown as Informer<ConfigMap>;
    const lines: string[] = [];
    const log = pino(loggerOptions('catalog', 'info'), { write: (line: string) => lines.push(line) });
    const watcher = new CatalogWatcher({ informer, log, removalGraceMs: 600_000 });
    await watcher.start();
    const slug = 'genjobs/extra/text-to-image';
    expect(watcher.current?.variantsBySlug.has(slug)).toBe(true);
    configMaps = configMaps.slice(0, 1);
    watcher.reload();
    expect(watcher.pauseFor(slug)).toBeGreaterThan(0);
    const said = () => lines.map((l) => JSON.parse(l)).filter((l) => l.model === slug);
    expect(said()).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(/left the catalog.*MODEL_UNAVAILABLE/),
        graceMinutes: 10,
      }),
    ]);
    configMaps = [configMaps[0]!, extra];
    watcher.reload();
    expect(said().at(-1)).toMatchObject({ msg: 'a model is back in the catalog' });
    await watcher.stop();
  });
});
