import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Kube } from '../../src/k8s/client.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';
import { KUBECTL, render, run } from '../chart/helm.ts';
import { kubeconfigPath } from '../support/cluster.ts';
import { tokenKube } from '../support/rbac.ts';
import { startTestApi, type TestService } from '../support/service.ts';

/**
 * Issue 17.2: under the chart's Role the api cannot delete GenerationJobs, so a refused
 * submit must not create one: a replay of the refused key is refused again, never
 * answered with a job that holds no money. No controller runs, so nothing removes jobs.
 */
let s: TestService;

async function chartApiIdentity(admin: Kube): Promise<Kube> {
  const { objects } = await render({}, { namespace: admin.namespace });
  const rbac = objects.filter((o) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind));
  await ensureNamespace(admin, `${admin.namespace}-webhooks`);
  const r = await run(KUBECTL, ['apply', '-f', '-'], {
    input: rbac.map((o) => `---\n${stringify(o)}`).join(''),
    env: { KUBECONFIG: kubeconfigPath() },
  });
  if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
  return tokenKube(admin, 'genjobs-api');
}

beforeAll(async () => {
  s = await startTestApi('refusals', {}, undefined, chartApiIdentity);
}, 180_000);
afterAll(async () => s?.stop());

const IMAGE = 'genjobs/reference-image/text-to-image';
const COST = 134_000;

describe('refused submits under the chart RBAC', () => {
  const submit = (key: string, idem: string, prompt = 'x') =>
    s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'idempotency-key': idem },
      json: { model: IMAGE, input: { prompt } },
    });

  it('402 creates no job, and its replay is refused again', async () => {
    const key = await s.account({ name: 'poor', plan: 'pro', grantMicroCents: COST + 1_000 });
    // The api reads the grant from the Account; with no controller it applies it itself.
    expect((await submit(key, 'first')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const refused = await submit(key, 'second');
      expect([refused.status, (await refused.json()).code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
    }
    const jobs = (await s.r.jobs.listAll()).filter((j) => j.spec.account === 'poor');
    expect(jobs).toHaveLength(1);
  });

  it('429 creates no job, and its replay is refused again', async () => {
    const key = await s.account({ name: 'busy', plan: 'free' });
    const first = await Promise.all([submit(key, 'a', 'a'), submit(key, 'b', 'b')]);
    expect(first.map((r) => r.status)).toEqual([200, 200]);
    for (let i = 0; i < 2; i++) {
      const refused = await submit(key, 'c', 'c');
      const problem = await refused.json();
      expect([refused.status, problem.code]).toEqual([429, 'CONCURRENT_JOBS_EXCEEDED']);
      // Its two jobs may still wait for a slot: the message counts them as not finished.
      expect(problem.detail).toMatch(
        /^plan free allows 2 concurrent jobs and the account has 2 not finished \(waiting or running\); try again in \d+ s$/,
      );
      expect(problem.detail).toContain(`try again in ${refused.headers.get('retry-after')} s`);
    }
    const jobs = (await s.r.jobs.listAll()).filter((j) => j.spec.account === 'busy');
    expect(jobs).toHaveLength(2);
  });
});
