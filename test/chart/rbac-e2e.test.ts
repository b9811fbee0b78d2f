import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Kube } from '../../src/k8s/client.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';
import { statusCode } from '../../src/k8s/errors.ts';
import { createPod } from '../../src/k8s/pods.ts';
import { kubeconfigPath } from '../support/cluster.ts';
import { tokenKube } from '../support/rbac.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { KUBECTL, render, run } from './helm.ts';

let s: TestStack;
let apiKube: Kube;
let controllerKube: Kube;

/** Installs the chart's ServiceAccounts, Roles and RoleBindings (nothing else) into the namespace. */
async function installChartRbac(admin: Kube): Promise<void> {
  const { objects } = await render({}, { namespace: admin.namespace });
  const rbac = objects.filter((o) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind));
  expect(rbac.map((o) => o.kind)).toContain('Role');
  await ensureNamespace(admin, `${admin.namespace}-webhooks`);
  const r = await run(KUBECTL, ['apply', '-f', '-'], {
    input: rbac.map((o) => `---\n${stringify(o)}`).join(''),
    env: { KUBECONFIG: kubeconfigPath() },
  });
  if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
}

beforeAll(async () => {
  s = await startTestStack('rbac-e2e', {
    env: { GENJOBS_LEADER_ELECTION: 'true' },
    apiIdentity: async (admin) => {
      await installChartRbac(admin);
      apiKube = await tokenKube(admin, 'genjobs-api');
      return apiKube;
    },
    controllerIdentity: async (admin) => {
      controllerKube = await tokenKube(admin, 'genjobs-controller');
      return controllerKube;
    },
  });
}, 180_000);
afterAll(async () => s?.stop());

async function denied(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    return statusCode(err) === 403;
  }
}

describe('the service under the chart RBAC', () => {
  it('runs the whole flow with the api and controller as their chart ServiceAccounts', async () => {
    const key = await s.account({ name: 'acme' });
    const submit = (prompt: string) =>
      s.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: 'genjobs/reference-image/text-to-image', input: { prompt } },
      });
    const { jobId } = await (await submit('under rbac')).json();
    let job: { status: string } = { status: 'pending' };
    for (let i = 0; i < 300 && job.status !== 'completed' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      job = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
    }
    expect(job.status).toBe('completed');
    const presign = await s.call('/v1/uploads/presign', {
      method: 'POST',
      key,
      json: { filename: 'a.png', contentType: 'image/png' },
    });
    expect(presign.status).toBe(200);
    expect(s.controller.isLeader()).toBe(true);
  });

  it('refuses what is outside their rights: the api creates no Pods, the controller reads no foreign Secret', async () => {
    const pod = { metadata: { name: 'intruder' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    expect(await denied(createPod(apiKube, pod))).toBe(true);
    await s.kube.core.createNamespacedSecret({
      namespace: s.kube.namespace,
      body: { metadata: { name: 'database' }, stringData: { password: 'x' } },
    });
    expect(
      await denied(
        controllerKube.core.readNamespacedSecret({ name: 'database', namespace: s.kube.namespace }),
      ),
    ).toBe(true);
    expect(await denied(controllerKube.core.listNamespacedSecret({ namespace: s.kube.namespace }))).toBe(
      true,
    );
    expect(
      await denied(apiKube.core.readNamespacedSecret({ name: 'database', namespace: s.kube.namespace })),
    ).toBe(true);
  });
});
