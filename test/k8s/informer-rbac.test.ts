import { afterAll, expect, it } from 'vitest';
import type { Informer } from '../../src/k8s/informer.ts';
import { type ResourceQuota, resourceQuotaInformer } from '../../src/k8s/quotas.ts';
import { eventually, testNamespace } from '../support/cluster.ts';
import { asServiceAccount } from '../support/rbac.ts';
import { memoryLogger } from '../support/service.ts';

let informer: Informer<ResourceQuota> | undefined;
afterAll(() => informer?.stop());

it('a watch its Role does not allow says which grant is missing, and keeps trying', async () => {
  const admin = await testNamespace('informer-rbac');
  // A Role from before the controller watched ResourceQuotas.
  const kube = await asServiceAccount(admin, 'no-quotas', [
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  ]);
  const { log, lines } = memoryLogger();
  informer = resourceQuotaInformer(kube, log);
  void informer.start();
  const refused = await eventually(
    async () => lines.find((l) => l.includes('watch refused')),
    10_000,
    'the refused watch to be logged',
  );
  const line = JSON.parse(refused) as { level: string; msg: string; retryInMs: number };
  expect(line.level).toBe('warn');
  expect(line.msg).toBe(
    `watch refused (403): this process's identity may not list and watch /api/v1/namespaces/${admin.namespace}/resourcequotas; its Role must grant both (the chart's does); retrying`,
  );
  expect(line.retryInMs).toBeGreaterThan(0);
  expect(informer.synced).toBe(false);
});
