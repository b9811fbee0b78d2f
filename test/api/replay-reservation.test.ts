import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { startTestApi, type TestService } from '../support/service.ts';

// A submit's job and reservation are written at once; under a frozen apiserver the job may
// land while the reservation does not (or is undone). The retry with the same key must not
// answer 200 for a job that holds no reservation: the controller would remove it.
const IMAGE = 'genjobs/reference-image/text-to-image';
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestApi('replay-reservation');
  key = await svc.account({ name: 'acme', grantMicroCents: 1_000_000 });
});
afterAll(async () => svc?.stop());

const submit = () =>
  svc.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    headers: { 'idempotency-key': 'retry-after-timeout' },
    json: { model: IMAGE, input: { prompt: 'a harbour' } },
  });

describe('a replayed submit whose job lost its reservation', () => {
  it('reserves again, once, before answering 200', async () => {
    const first = await (await submit()).json();
    // The reservation is gone while the job stays pending, as when its write never landed.
    await new Ledger({ accounts: svc.r.accounts }).run('acme', { kind: 'refund', jobId: first.jobId });
    expect((await svc.r.accounts.get('acme'))?.status?.reservations ?? {}).toEqual({});

    const replay = await submit();
    expect(replay.status).toBe(200);
    expect((await replay.json()).jobId).toBe(first.jobId);
    const status = (await svc.r.accounts.get('acme'))?.status;
    expect(status?.reservations).toEqual({ [first.jobId]: 134_000 });
    expect(status?.balanceMicroCents).toBe(1_000_000 - 134_000);
    expect(imbalance(status)).toBe(0);

    // Once more: the reservation shows, nothing more is taken.
    expect((await submit()).status).toBe(200);
    expect((await svc.r.accounts.get('acme'))?.status?.balanceMicroCents).toBe(1_000_000 - 134_000);
  });

  it('a finished job is replayed as it is, and never reserved again', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'idempotency-key': 'finished' },
      json: { model: IMAGE, input: { prompt: 'a pier' } },
    });
    const { jobId } = await res.json();
    const job = (await svc.r.jobs.get(jobId))!;
    await svc.r.jobs.updateStatus({ ...job, status: { phase: 'completed', progress: 100 } });
    await new Ledger({ accounts: svc.r.accounts }).run('acme', { kind: 'charge', jobId });
    const before = (await svc.r.accounts.get('acme'))?.status;
    const replay = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'idempotency-key': 'finished' },
      json: { model: IMAGE, input: { prompt: 'a pier' } },
    });
    expect(replay.status).toBe(200);
    const after = (await svc.r.accounts.get('acme'))?.status;
    expect(after?.reservations?.[jobId]).toBeUndefined();
    expect(after?.balanceMicroCents).toBe(before?.balanceMicroCents);
  });
});
