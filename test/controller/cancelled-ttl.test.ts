import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
beforeAll(async () => {
  // No free slot on the node: worker Pods stay Pending, so a job stays cancellable.
  s = await startTestStack('cancelled-ttl', { slots: 0, env: { GENJOBS_CANCELLED_JOB_TTL: '1s' } });
});
afterAll(async () => {
  await s?.stop();
});

it('a cancelled job is refunded and its resource deleted soon after, not after the finished-job TTL', async () => {
  const key = await s.account({ name: 'acme', grantMicroCents: 1_000_000 });
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: 'never mind' } },
  });
  expect(res.status).toBe(200);
  const { jobId } = await res.json();
  const cancel = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
  expect(cancel.status).toBe(200);
  await eventually(async () => (await s.r.jobs.get(jobId)) === undefined, 20_000, 'the job deleted');
  const account = await s.r.accounts.get('acme');
  expect(account?.status?.balanceMicroCents).toBe(1_000_000);
  expect(account?.status?.reservations ?? {}).toEqual({});
});
