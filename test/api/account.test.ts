import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestApi('account-api');
  key = await svc.account({ name: 'acme' });
});
afterAll(async () => {
  await svc?.stop();
});

const IMAGE = 'genjobs/reference-image/text-to-image';

describe('GET /v1/account', () => {
  it("answers the key's own account: a new one holds its whole grant, before the controller applies it", async () => {
    const res = await svc.call('/v1/account', { key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      account: 'acme',
      plan: 'pro',
      maxConcurrentJobs: 20,
      balanceMicroCents: 100_000_000,
      heldMicroCents: 0,
      spentMicroCents: 0,
    });
  });

  it('any valid key of the account may read it, and each account sees only its own', async () => {
    const readOnly = await svc.account({ name: 'dash', plan: 'free', grantMicroCents: 5_000 }, [
      'list_models',
    ]);
    const res = await svc.call('/v1/account', { key: readOnly });
    expect(await res.json()).toMatchObject({
      account: 'dash',
      plan: 'free',
      maxConcurrentJobs: 2,
      balanceMicroCents: 5_000,
    });
    expect((await (await svc.call('/v1/account', { key })).json()).account).toBe('acme');
  });

  it("follows the ledger: after a submit, balance + held + spent is still the grant, and the figures are the Account's", async () => {
    const submit = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect(submit.status).toBe(200);
    const after = await eventually(async () => {
      const a = await (await svc.call('/v1/account', { key })).json();
      return a.heldMicroCents >= 134_000 && a;
    });
    expect(after.balanceMicroCents + after.heldMicroCents + after.spentMicroCents).toBe(100_000_000);
    const status = (await svc.r.accounts.get('acme'))!.status!;
    expect([after.balanceMicroCents, after.heldMicroCents]).toEqual([
      status.balanceMicroCents,
      status.heldMicroCents,
    ]);
  });

  it('without a key: 401', async () => {
    const res = await svc.call('/v1/account');
    expect([res.status, (await res.json()).code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
