import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/client/sse.ts';
import { eventually } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

// The api alone (no controller): a submitted job stays pending until it is cancelled, so
// the only change its stream sees is the one the test makes.
let svc: TestService;
const IMAGE = 'genjobs/reference-image/text-to-image';

beforeAll(async () => {
  svc = await startTestApi('events-auth');
});
afterAll(async () => svc?.stop());

/** Submits a job with `key`, opens its event stream with `streamKey`, and reads the first event. */
async function openStream(key: string, streamKey: string) {
  const submit = await svc.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: IMAGE, input: { prompt: 'x' } },
  });
  const { jobId } = (await submit.json()) as { jobId: string };
  const res = await fetch(`${svc.api.url}/v1/jobs/${jobId}/events`, {
    headers: { authorization: `Bearer ${streamKey}` },
  });
  expect(res.status).toBe(200);
  const events = readEvents(res.body!)[Symbol.asyncIterator]();
  const first = await events.next();
  expect(JSON.parse(first.value!.data)).toMatchObject({ jobId, status: 'pending' });
  const rest = async () => {
    const records: Array<{ status: string }> = [];
    for (let e = await events.next(); !e.done; e = await events.next())
      records.push(JSON.parse(e.value.data));
    return records;
  };
  return { jobId, rest };
}

describe('an event stream whose key stops being valid', () => {
  it('ends at its next event once the key is revoked, sending nothing more; reconnecting is a 401', async () => {
    const key = await svc.account({ name: 'acme' });
    const { key: streamKey, apiKey } = await svc.admin.createKey('acme', ['check_status']);
    const { jobId, rest } = await openStream(key, streamKey);
    await svc.admin.revokeKey(apiKey.metadata.name!);
    // Until the api's cache sees the revocation a new request with the key still passes.
    await eventually(
      async () => (await svc.call(`/v1/jobs/${jobId}`, { key: streamKey })).status === 401,
      5_000,
      'the api saw the revocation',
    );
    const cancel = await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
    expect(cancel.status).toBe(200);
    // The cancelled record is not sent to a key revoked before it: the stream just ends.
    expect(await rest()).toEqual([]);
    const again = await fetch(`${svc.api.url}/v1/jobs/${jobId}/events`, {
      headers: { authorization: `Bearer ${streamKey}` },
    });
    expect(again.status).toBe(401);
    // The owner's valid key still sees the cancellation.
    expect(await (await svc.call(`/v1/jobs/${jobId}`, { key })).json()).toMatchObject({
      status: 'cancelled',
    });
  });

  it('ends as soon as the api sees the revocation, with nothing else happening (not at the next heartbeat)', async () => {
    const key = await svc.account({ name: 'quiet-co' });
    const { key: streamKey, apiKey } = await svc.admin.createKey('quiet-co', ['check_status']);
    const { rest } = await openStream(key, streamKey);
    const revokedAt = Date.now();
    await svc.admin.revokeKey(apiKey.metadata.name!);
    expect(await rest()).toEqual([]);
    // The heartbeat comes every 15 s: well before it.
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
  });

  it('ends once the key is disabled; a stream of a still-valid key goes on', async () => {
    const key = await svc.account({ name: 'globex' });
    const { key: doomedKey, apiKey } = await svc.admin.createKey('globex', ['check_status']);
    const doomed = await openStream(key, doomedKey);
    const kept = await openStream(key, key);
    await svc.r.apiKeys.patch(apiKey.metadata.name!, { spec: { disabled: true } });
    await eventually(
      async () => (await svc.call(`/v1/jobs/${doomed.jobId}`, { key: doomedKey })).status === 401,
      5_000,
      'the api saw the key disabled',
    );
    for (const id of [doomed.jobId, kept.jobId])
      expect((await svc.call(`/v1/jobs/${id}/cancel`, { method: 'POST', key })).status).toBe(200);
    expect(await doomed.rest()).toEqual([]);
    expect((await kept.rest()).at(-1)?.status).toBe('cancelled');
  });
});

describe('an account deleted and created again under its name', () => {
  it("takes over none of the old account's keys, jobs or uploads", async () => {
    const key = await svc.account({ name: 'initech', grantMicroCents: 10_000_000 });
    const submit = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect(submit.status).toBe(200);
    const { jobId } = (await submit.json()) as { jobId: string };
    await svc.r.accounts.delete('initech'); // kubectl delete account initech
    // The admin command refuses the name while anything of the old account is left, and says what.
    const refused = await svc.admin
      .createAccount({ name: 'initech', grantMicroCents: 1 })
      .catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/deleted account named initech still has API keys .*, jobs/);
    expect(await svc.r.accounts.get('initech')).toBeUndefined();
    // Made by hand all the same (kubectl create), in a later second than the old job (whole
    // seconds in creationTimestamp): the old key names the old account's uid.
    const createdAt = (await svc.r.jobs.get(jobId))!.metadata.creationTimestamp!;
    while (new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') <= createdAt) await sleep(50);
    await svc.r.accounts.create({
      metadata: { name: 'initech' },
      spec: { plan: 'pro', grantedMicroCents: 1 },
    });
    await eventually(
      async () => (await svc.call('/v1/jobs', { key })).status === 401,
      5_000,
      'the old key refused by the new account',
    );
    const res = await svc.call(`/v1/jobs/${jobId}`, { key });
    expect([res.status, (await res.json()).detail]).toEqual([401, 'the API key belongs to no account']);
    // A key made for the new account works, and sees none of the old account's jobs.
    const { key: fresh } = await svc.admin.createKey('initech', ['check_status']);
    await eventually(
      async () => (await svc.call('/v1/jobs', { key: fresh })).status === 200,
      5_000,
      'new key',
    );
    expect((await (await svc.call('/v1/jobs', { key: fresh })).json()).jobs).toEqual([]);
    const old = await svc.call(`/v1/jobs/${jobId}`, { key: fresh });
    expect([old.status, (await old.json()).code]).toEqual([403, 'UNAUTHORIZED_ACCESS']);
  });
});
