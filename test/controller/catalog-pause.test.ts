import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import {
  CATALOG_LABEL,
  CATALOG_SELECTOR,
  CatalogWatcher,
  NO_CATALOG_RETRY_MS,
} from '../../src/catalog/watcher.ts';
import { applyConfigMap, configMapInformer } from '../../src/k8s/configmaps.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually, testNamespace } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('catalog-pause', { slots: 2 });
});
afterAll(async () => {
  await s?.stop();
});

const model = 'genjobs/reference-image/text-to-image';

it('a catalog ConfigMap deleted and restored pauses nothing: queued jobs run, submits keep working', async () => {
  const key = await s.account({ name: 'acme', plan: 'enterprise' });
  const submit = async (prompt: string) => {
    const res = await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input: { prompt } } });
    expect(res.status).toBe(200);
    return (await res.json()).jobId as string;
  };
  // More jobs than the model runs at once (4) and the node has slots (2): some wait, Pod-less.
  const queued = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(`queued ${i}`)));
  await s.kube.core.deleteNamespacedConfigMap({
    name: 'genjobs-catalog-default',
    namespace: s.kube.namespace,
  });
  // Both watchers rebuild within their 100 ms debounce of the deletion.
  await new Promise((r) => setTimeout(r, 1_000));
  const during = await submit('while the catalog is gone');
  const ids = [...queued, during];
  const phases = await eventually(
    async () => {
      const jobs = await Promise.all(ids.map((id) => s.r.jobs.get(id)));
      const p = jobs.map((j) => j?.status?.phase ?? 'pending');
      return p.every((x) => x === 'completed' || x === 'failed') ? { p, jobs } : undefined;
    },
    90_000,
    'every job finished',
  );
  expect(phases.jobs.map((j) => j?.status?.error?.code).filter(Boolean)).toEqual([]);
  expect(phases.p.every((x) => x === 'completed')).toBe(true);
  await applyConfigMap(s.kube, await defaultCatalogConfigMap());
  expect(await submit('after the restore')).toBeTruthy();
});

const EXTRA = `models:
  - provider: genjobs
    name: extra-image
    displayName: Extra Image
    description: A model that comes and goes.
    category: image
    tags: [extra]
    ratings: { average: 0, count: 0 }
    visibility: public
    defaultCapability: text-to-image
    versions: [v1.0]
    variants:
      text-to-image:
        inputSchema:
          type: object
          additionalProperties: false
          required: [prompt]
          properties: { prompt: { type: string } }
        pricing: { baseCredits: 134000, unit: per_generation }
        runtime: { type: builtin, maxConcurrency: 1, timeoutSeconds: 600, typicalSeconds: 30 }
`;

it('queued jobs wait while no catalog has loaded, and for a grace after their model is removed', async () => {
  const kube = await testNamespace('catalog-grace');
  let now = Date.now();
  const watcher = new CatalogWatcher({
    informer: configMapInformer(kube, CATALOG_SELECTOR, silentLogger()),
    log: silentLogger(),
    removalGraceMs: 60_000,
    now: () => now,
    debounceMs: 10,
  });
  await watcher.start();
  expect(watcher.current).toBeUndefined();
  expect(watcher.pauseFor('genjobs/extra-image/text-to-image')).toBe(NO_CATALOG_RETRY_MS);

  await applyConfigMap(kube, await defaultCatalogConfigMap());
  const extra = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'extra', labels: { [CATALOG_LABEL]: 'true' } },
    data: { 'extra.yaml': EXTRA },
  };
  await applyConfigMap(kube, extra);
  const slug = 'genjobs/extra-image/text-to-image';
  await eventually(() => watcher.current?.variantsBySlug.has(slug), 10_000, 'the extra model');
  expect(watcher.pauseFor(slug)).toBeUndefined();

  await kube.core.deleteNamespacedConfigMap({ name: 'extra', namespace: kube.namespace });
  await eventually(() => watcher.current && !watcher.current.variantsBySlug.has(slug), 10_000, 'removed');
  expect(watcher.pauseFor(slug)).toBe(60_000);
  expect(watcher.pauseFor('genjobs/never-listed/text-to-image')).toBeUndefined();
  now += 45_000;
  expect(watcher.pauseFor(slug)).toBe(15_000);
  now += 15_001;
  expect(watcher.pauseFor(slug)).toBeUndefined();

  // Every ConfigMap gone: the last good catalog stays in service.
  await kube.core.deleteNamespacedConfigMap({ name: 'genjobs-catalog-default', namespace: kube.namespace });
  await eventually(
    async () =>
      (
        await kube.core.listNamespacedConfigMap({
          namespace: kube.namespace,
          labelSelector: CATALOG_SELECTOR,
        })
      ).items.length === 0,
    10_000,
    'deleted',
  );
  await new Promise((r) => setTimeout(r, 300));
  expect(watcher.current?.variantsBySlug.has('genjobs/reference-image/text-to-image')).toBe(true);
  await watcher.stop();
});

it('a broken catalog ConfigMap counts as a failed reload in the controller too, as the api counts it', async () => {
  const reloads = async () =>
    Number(
      /^genjobs_catalog_reloads_total\{result="error"\} (\d+)/m.exec(
        await (await fetch(`${s.controller.url}/metrics`)).text(),
      )?.[1],
    );
  const before = await reloads();
  expect(before).toBeGreaterThanOrEqual(0);
  await applyConfigMap(s.kube, {
    metadata: { name: 'catalog-broken', labels: { [CATALOG_LABEL]: 'true' } },
    data: { 'catalog.yaml': 'models: [unclosed' },
  });
  try {
    await eventually(async () => (await reloads()) > before, 5_000, 'a failed reload counted');
  } finally {
    await s.kube.core.deleteNamespacedConfigMap({ name: 'catalog-broken', namespace: s.kube.namespace });
  }
});

it('a job waiting for a model that leaves the catalog says when it fails unless the model comes back', async () => {
  const key = await s.account({ name: 'removal-co' });
  const paused = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'extra-paused', labels: { [CATALOG_LABEL]: 'true' } },
    data: { 'extra.yaml': EXTRA.replace('maxConcurrency: 1', 'maxConcurrency: 0') },
  };
  await applyConfigMap(s.kube, paused);
  const slug = 'genjobs/extra-image/text-to-image';
  const jobId = await eventually(
    async () => {
      const res = await s.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: slug, input: { prompt: 'x' } },
      });
      return res.status === 200 && ((await res.json()).jobId as string);
    },
    10_000,
    'the extra model listed',
  );
  const admitted = async () =>
    (await s.r.jobs.get(jobId))?.status?.conditions?.find((c) => c.type === 'Admitted');
  expect(await eventually(async () => (await admitted())?.reason === 'ModelPaused', 10_000)).toBe(true);
  await s.kube.core.deleteNamespacedConfigMap({ name: 'extra-paused', namespace: s.kube.namespace });
  const removed = await eventually(
    async () => {
      const c = await admitted();
      return c?.reason === 'ModelRemoved' && c;
    },
    10_000,
    'ModelRemoved',
  );
  expect(removed.status).toBe('False');
  const failsAt = Date.parse(/at (\S+) unless it comes back$/.exec(removed.message ?? '')?.[1] ?? '');
  // The grace (GENJOBS_CATALOG_REMOVAL_GRACE, 10 minutes) from the removal; the transition
  // time is kept in whole seconds.
  const grace = failsAt - Date.parse(removed.lastTransitionTime);
  expect(grace).toBeGreaterThan(9 * 60_000);
  expect(grace).toBeLessThanOrEqual(10 * 60_000 + 1_000);
  expect(removed.message).toMatch(/left the catalog: the job fails MODEL_UNAVAILABLE, refunded/);
  expect((await s.r.jobs.get(jobId))?.status?.phase ?? 'pending').toBe('pending');
  // A controller started after the removal never saw the model: the condition keeps the grace.
  await s.controller.stop();
  s.controller = await s.startController();
  await new Promise((r) => setTimeout(r, 2_000));
  const after = await s.r.jobs.get(jobId);
  expect(after?.status?.phase ?? 'pending').toBe('pending');
  expect(after?.status?.conditions?.find((c) => c.type === 'Admitted')).toEqual(removed);
});
