import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyImageModel } from '../support/catalogs.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const PAUSED = 'genjobs/paused/text-to-image';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('cancelled-ttl', { env: { GENJOBS_CANCELLED_JOB_TTL: '1s' } });
  // A model with no capacity: its jobs are never admitted (admission moves a job to
  // processing before its Pod exists, and a processing job may not be cancelled), so a job
  // of it stays pending and cancellable.
  await applyImageModel(s.kube, { name: 'paused', displayName: 'Paused', baseCredits: 134_000, slots: 0 });
  await eventually(() => s.api.catalog()?.variantsBySlug.has(PAUSED), 10_000, 'catalog');
});
afterAll(async () => {
  await s?.stop();
});

it('a cancelled job is refunded and its resource deleted soon after, not after the finished-job TTL', async () => {
  const key = await s.account({ name: 'acme', grantMicroCents: 1_000_000 });
  const refunded = async (url: string) =>
    Number(
      /^genjobs_credits_refunded_microcents_total (\d+)/m.exec(
        await (await fetch(`${url}/metrics`)).text(),
      )?.[1] ?? 0,
    );
  const before = { api: await refunded(s.api.url), ctl: await refunded(s.controller.url) };
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: PAUSED, input: { prompt: 'never mind' } },
  });
  expect(res.status).toBe(200);
  const { jobId } = await res.json();
  const cancel = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
  expect(cancel.status).toBe(200);
  expect((await cancel.json()).refundedMicroCents).toBe(134_000);
  await eventually(async () => (await s.r.jobs.get(jobId)) === undefined, 20_000, 'the job deleted');
  // The api's credit lease returns what it did not spend at the end of its term.
  await eventually(
    async () => (await s.r.accounts.get('acme'))?.status?.balanceMicroCents === 1_000_000,
    20_000,
    'the whole grant back on the balance',
  );
  const account = await s.r.accounts.get('acme');
  expect(account?.status?.reservations ?? {}).toEqual({});
  // The refund is counted once, by the api that wrote the cancel, whoever settled it.
  expect((await refunded(s.api.url)) - before.api).toBe(134_000);
  expect((await refunded(s.controller.url)) - before.ctl).toBe(0);
});
