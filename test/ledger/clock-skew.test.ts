import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountAdmin } from '../../src/accounts/admin.ts';
import { fromKubeConfig, type Kube } from '../../src/k8s/client.ts';
import { resources } from '../../src/k8s/resources.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';
const SKEW_MS = 180_000;

let s: TestStack;
let apiKube: Kube;
beforeAll(async () => {
  // The api's node clock is three minutes behind the apiserver's and the controller's: the
  // credit leases it writes would have expired, by the controller's clock, before their
  // jobs were made (closed at once, their jobs then ran unpaid or were removed).
  s = await startTestStack('clock-skew', {
    apiIdentity: async (admin) => {
      apiKube = fromKubeConfig(admin.kc, admin.namespace, undefined, () => Date.now() - SKEW_MS);
      return apiKube;
    },
  });
});
afterAll(async () => {
  await s?.stop();
});

it("an api replica whose clock is minutes behind keeps the apiserver's time: its jobs run, each charged once", async () => {
  const key = await s.account({ name: 'skewed', plan: 'pro', grantMicroCents: 10_000_000 });
  const ids: string[] = [];
  let cost = 0;
  for (let i = 0; i < 3; i++) {
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: `s${i}` } },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    ids.push(body.jobId);
    cost = body.costMicroCents;
  }
  await eventually(
    async () => {
      const jobs = await Promise.all(ids.map(async (id) => (await s.call(`/v1/jobs/${id}`, { key })).json()));
      return jobs.every((j) => j.status === 'completed');
    },
    60_000,
    'every job completed',
  );
  const account = await eventually(
    async () => {
      const a = (await s.r.accounts.get('skewed'))?.status;
      return a?.spentMicroCents === 3 * cost && (a.heldMicroCents ?? 0) === 0 && a;
    },
    30_000,
    'the three charged, nothing held',
  );
  expect(account.balanceMicroCents).toBe(10_000_000 - 3 * cost);
  expect(imbalance(account)).toBe(0);
  // The api says what it corrected.
  expect(apiKube.clock.offsetMs()).toBeGreaterThan(SKEW_MS - 2_000);
});

it("a key made from a machine whose clock is an hour behind expires when asked, by the apiserver's clock", async () => {
  await s.admin.createAccount({ name: 'late-admin', plan: 'pro', grantMicroCents: 0 });
  const late = fromKubeConfig(s.kube.kc, s.kube.namespace, undefined, () => Date.now() - 3_600_000);
  // As the admin command makes it (src/admin/cli.ts).
  const admin = new AccountAdmin(resources(late), () => late.clock.now());
  const { key, apiKey } = await admin.createKey('late-admin', ['check_status'], 30 * 60_000);
  const expires = Date.parse(apiKey.spec.expiresAt ?? '');
  expect(Math.abs(expires - (Date.now() + 30 * 60_000))).toBeLessThan(5_000);
  await eventually(async () => (await s.call('/v1/account', { key })).status === 200, 5_000, 'the key works');
});
