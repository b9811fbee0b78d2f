import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/main.ts';
import { eventually } from '../support/cluster.ts';
import { startTestController } from '../support/controller.ts';
import { startTestApi, type TestService } from '../support/service.ts';

// The archive off (these processes' default) and a short TTL for cancelled jobs: a job made
// with an Idempotency-Key must still answer its key for 24 h after the TTL has passed.
let svc: TestService;
let controller: RunningController;
let key: string;

beforeAll(async () => {
  svc = await startTestApi('keyed-ttl');
  key = await svc.account({ name: 'acme' });
  // No node agent: the jobs' Pods are never bound, so the jobs stay pending until cancelled.
  controller = await startTestController(svc, {
    env: { GENJOBS_CANCELLED_JOB_TTL: '1s', GENJOBS_LEASE_GRACE: '1s' },
  });
});
afterAll(async () => {
  await controller?.stop();
  await svc?.stop();
});

const IMAGE = 'genjobs/reference-image/text-to-image';

async function submit(idempotencyKey?: string) {
  const res = await svc.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: IMAGE, input: { prompt: 'a lighthouse' } },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
  expect(res.status).toBe(200);
  return { jobId: (await res.json()).jobId as string, replayed: res.headers.get('idempotent-replayed') };
}

it('a cancelled job made with an Idempotency-Key outlives the short TTL: its key replays it, and charges nothing', async () => {
  const plain = await submit();
  const keyed = await submit('order-7');
  for (const { jobId } of [plain, keyed]) {
    expect((await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key })).status).toBe(200);
  }
  // The job without a key goes once its refund landed and the TTL passed.
  await eventually(
    async () => (await svc.r.jobs.get(plain.jobId)) === undefined,
    30_000,
    'the plain job deleted',
  );
  await new Promise((r) => setTimeout(r, 2_000));
  expect(await svc.r.jobs.get(keyed.jobId)).toBeDefined();
  const balance = (await svc.r.accounts.get('acme'))?.status?.balanceMicroCents;

  const replay = await submit('order-7');
  expect(replay).toEqual({ jobId: keyed.jobId, replayed: 'true' });
  const job = await (await svc.call(`/v1/jobs/${keyed.jobId}`, { key })).json();
  expect(job.status).toBe('cancelled');
  expect((await svc.r.accounts.get('acme'))?.status?.balanceMicroCents).toBe(balance);
});
