import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_CREDENTIALS_LABEL } from '../../src/controller/job/credentials.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';
import { parseManifests } from '../chart/helm.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('credentials');
  // The example catalog's acme model names the Secret acme-token; it exists, unlabelled.
  const [catalog] = parseManifests(
    await readFile(join(REPO_ROOT, 'deploy/examples/catalog-acme.yaml'), 'utf8'),
  );
  await applyConfigMap(s.kube, { metadata: catalog!.metadata, data: catalog!.data });
  await s.kube.core.createNamespacedSecret({
    namespace: s.kube.namespace,
    body: { metadata: { name: 'acme-token' }, stringData: { token: 'not for workers' } },
  });
  await eventually(
    () => s.api.catalog()?.variantsBySlug.has('acme/sharp-v2/text-to-image'),
    10_000,
    'catalog',
  );
}, 180_000);
afterAll(async () => s?.stop());

describe('a model whose authSecretRef names an unlabelled Secret', () => {
  it('gets no worker Pod until the Secret is labelled; the job says why in an Event', async () => {
    const key = await s.account({ name: 'beta', segments: ['beta'] });
    const submit = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: 'acme/sharp-v2/text-to-image', input: { prompt: 'a kite' } },
    });
    expect(submit.status).toBe(200);
    const { jobId } = await submit.json();
    const events = await eventually(
      async () => {
        const list = await s.kube.core.listNamespacedEvent({
          namespace: s.kube.namespace,
          fieldSelector: `involvedObject.name=${jobId},reason=CredentialsRefused`,
        });
        return list.items.length > 0 && list.items;
      },
      20_000,
      'a CredentialsRefused Event',
    );
    expect(events[0]!.message).toMatch(/acme-token is not labelled genjobs\.io\/model-credentials/);
    const pods = await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `genjobs.io/job=${jobId}`,
    });
    expect(pods.items).toEqual([]);
    expect((await (await s.call(`/v1/jobs/${jobId}`, { key })).json()).status).toBe('pending');

    await s.kube.core.patchNamespacedSecret(
      {
        name: 'acme-token',
        namespace: s.kube.namespace,
        body: { metadata: { labels: { [MODEL_CREDENTIALS_LABEL]: 'true' } } },
      },
      (await import('../../src/k8s/client.ts')).MERGE_PATCH,
    );
    // The verdict is kept half a minute; then the retried job gets its Pod.
    await eventually(
      async () =>
        (
          await s.kube.core.listNamespacedPod({
            namespace: s.kube.namespace,
            labelSelector: `genjobs.io/job=${jobId}`,
          })
        ).items.length > 0,
      60_000,
      'the worker Pod once the Secret is labelled',
    );
  }, 120_000);
});
