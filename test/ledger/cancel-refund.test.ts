import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestService } from '../support/service.ts';

/**
 * The api alone (no controller to settle behind it): a cancel answered 200 has refunded
 * the job by then, even for a job and a lease the api's caches do not show yet.
 */
let s: TestService;
beforeAll(async () => {
  s = await startTestApi('cancel-refund');
});
afterAll(() => s?.stop());

it('a cancel right after the submit refunds the job before it answers, every time', async () => {
  const keys = await Promise.all(
    [0, 1, 2, 3].map((n) => s.account({ name: `quick-${n}`, plan: 'enterprise' })),
  );
  await Promise.all(keys.map((key, n) => submitAndCancel(key, `quick-${n}`)));
});

/** Submits and at once cancels, 40 times; checks each refund in the Account as the apiserver has it. */
async function submitAndCancel(key: string, name: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const submitted = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: `quick ${i}` } },
    });
    expect(submitted.status).toBe(200);
    const { jobId } = await submitted.json();
    const cancelled = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
    expect(cancelled.status).toBe(200);
    const { refundedMicroCents } = await cancelled.json();
    const job = await s.r.jobs.get(jobId);
    const account = await s.r.accounts.get(name);
    const refunded = account?.status?.leases?.[job?.spec.lease ?? '']?.refunded?.[jobId];
    expect({ name, i, refunded }).toEqual({ name, i, refunded: refundedMicroCents });
  }
}
