import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imbalance } from '../../src/ledger/ops.ts';
import { eventually } from '../support/cluster.ts';
import { asServiceAccount } from '../support/rbac.ts';
import { startTestApi, type TestService } from '../support/service.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';
const input = { prompt: 'consistency' };

describe('submit when the job cannot be written', () => {
  let svc: TestService;
  afterAll(async () => svc?.stop());

  it('answers 503 PUBSUB_PUBLISH_FAILED, retryable, and charges nothing', async () => {
    // The api runs with every right it needs except creating jobs: the apiserver refuses the write.
    svc = await startTestApi('publish-fail', {}, undefined, (admin) =>
      asServiceAccount(admin, 'api-no-create', [
        {
          apiGroups: ['genjobs.io'],
          resources: ['generationjobs', 'uploads', 'accounts', 'apikeys'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: ['genjobs.io'], resources: ['accounts/status'], verbs: ['update', 'patch'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create'] },
      ]),
    );
    const key = await svc.account({ name: 'acme', grantMicroCents: 1_000_000 });
    const res = await svc.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ code: 'PUBSUB_PUBLISH_FAILED', retryable: true });
    // The credit leased for it returns at the end of the lease's term (docs/money.md).
    await eventually(
      async () => (await svc.r.accounts.get('acme'))!.status!.balanceMicroCents === 1_000_000,
      5_000,
      'the lease returned',
    );
    const st = (await svc.r.accounts.get('acme'))!.status!;
    expect(st.reservations ?? {}).toEqual({});
    expect(st.leases ?? {}).toEqual({});
    expect(await svc.r.jobs.listAll()).toEqual([]);
  });
});

describe('consistency of what clients see', () => {
  let s: TestStack;
  let key: string;
  beforeAll(async () => {
    s = await startTestStack('consistency', { slots: 4 });
    key = await s.account({ name: 'acme', plan: 'enterprise', grantMicroCents: 1_000_000_000 });
  });
  afterAll(async () => s?.stop());
  const balance = async () => (await s.r.accounts.get('acme'))!.status!.balanceMicroCents!;
  /** The balance once no credit lease is open (leased credit is out of the balance until then). */
  const quietBalance = async () => {
    await eventually(
      async () => Object.keys((await s.r.accounts.get('acme'))!.status!.leases ?? {}).length === 0,
      30_000,
      'leases closed',
    );
    return balance();
  };

  it('refuses a job the balance cannot cover with 402 INSUFFICIENT_BALANCE', async () => {
    const poor = await s.account({ name: 'poor', grantMicroCents: 100_000 });
    const res = await s.call('/v1/jobs/submit', { method: 'POST', key: poor, json: { model: IMAGE, input } });
    expect([res.status, (await res.json()).code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
  });

  it('an Idempotency-Key racing itself makes one job and one charge; another body with it is a 409', async () => {
    const before = await quietBalance();
    const headers = { 'idempotency-key': 'order-7781' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.call('/v1/jobs/submit', { method: 'POST', key, headers, json: { model: IMAGE, input } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const ids = new Set(await Promise.all(answers.map(async (a) => (await a.json()).jobId)));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(before - (await quietBalance())).toBe(134_000);
    const other = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers,
      json: { model: IMAGE, input: { prompt: 'different' } },
    });
    expect([other.status, (await other.json()).code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('an Idempotency-Key sent many times at once on a balance for one job: one job, every answer its replay', async () => {
    const tight = await s.account({ name: 'tight', plan: 'pro', grantMicroCents: 134_000 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        s.call('/v1/jobs/submit', {
          method: 'POST',
          key: tight,
          headers: { 'idempotency-key': 'only-once' },
          json: { model: IMAGE, input },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const ids = new Set(await Promise.all(answers.map(async (a) => (await a.json()).jobId)));
    expect(ids.size).toBe(1);
  });

  it('the same body with its fields in another order (another client, another language) replays its key', async () => {
    const send = (body: string) =>
      s.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        headers: { 'idempotency-key': 'order-7782', 'content-type': 'application/json' },
        body,
      });
    const first = await send(`{"model":"${IMAGE}","input":{"prompt":"fields","seed":7}}`);
    expect(first.status).toBe(200);
    const again = await send(`{"input":{"seed":7,"prompt":"fields"},"model":"${IMAGE}"}`);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect((await again.json()).jobId).toBe((await first.json()).jobId);
  });

  it('a GET right after submit always sees the job', async () => {
    for (let i = 0; i < 30; i++) {
      const { jobId } = await (
        await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input } })
      ).json();
      const res = await s.call(`/v1/jobs/${jobId}`, { key });
      expect(res.status).toBe(200);
    }
  });

  it('a list right after a submit shows the job (the same replica, before its cache has it)', async () => {
    for (let i = 0; i < 30; i++) {
      const { jobId } = await (
        await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input } })
      ).json();
      const page = await (await s.call('/v1/jobs?limit=50', { key })).json();
      expect(page.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    }
  });

  it('a cancel racing the move to processing has one winner, later GETs agree, and the ledger balances', async () => {
    const outcomes = new Set<number>();
    for (let round = 0; round < 40 && outcomes.size < 2; round++) {
      // A job leaves pending when its worker Pod runs, soon after submit on an idle model:
      // so the model's four slots are taken by jobs submitted with it, and the cancel races
      // whichever start (at once, or when a slot frees) its job gets.
      const submitted = await Promise.all(
        Array.from({ length: 5 }, async () =>
          (await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input } })).json(),
        ),
      );
      const { jobId } = submitted[round % 5]!;
      // The cancel comes 60 ms later each round: the first ones win, and the sweep crosses the
      // moment the job starts wherever it falls. A loaded machine starts Pods later, so the
      // sweep reaches well past it (1.5 s) before it comes round again (it used to wrap at 0.4 s).
      await new Promise((r) => setTimeout(r, (round * 60) % 1_500));
      const cancel = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
      outcomes.add(cancel.status);
      const final = await eventually(
        async () => {
          const j = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
          return ['completed', 'cancelled', 'failed'].includes(j.status) ? j : undefined;
        },
        30_000,
        'a final state',
      );
      if (cancel.status === 200) {
        expect(final.status).toBe('cancelled');
        expect((await cancel.json()).refundedMicroCents).toBe(134_000);
      } else {
        expect(cancel.status).toBe(409);
        expect(final.status).toBe('completed');
      }
      // A quiet moment: every job of the account finished and settled.
      await eventually(
        async () => {
          const jobs = (await s.r.jobs.listAll()).filter((j) => j.spec.account === 'acme');
          const st = (await s.r.accounts.get('acme'))!.status!;
          return (
            jobs.every((j) => ['completed', 'cancelled', 'failed'].includes(j.status?.phase ?? '')) &&
            Object.keys(st.reservations ?? {}).length === 0 &&
            Object.keys(st.leases ?? {}).length === 0
          );
        },
        60_000,
        'a quiet moment',
      );
      // The invariant of DESIGN.md, with completed jobs' costs counted as spent.
      const st = (await s.r.accounts.get('acme'))!.status!;
      const completed = (await s.r.jobs.listAll()).filter(
        (j) => j.spec.account === 'acme' && j.status?.phase === 'completed',
      );
      expect(imbalance(st)).toBe(0);
      expect(st.spentMicroCents).toBe(completed.reduce((a, j) => a + j.spec.costMicroCents, 0));
    }
    expect([...outcomes].sort()).toEqual([200, 409]);
  });

  it('list pagination is stable while jobs are being added', async () => {
    const lister = await s.account({ name: 'lister', plan: 'enterprise' });
    await s.controller.stop(); // jobs stay pending: the list is about ordering, not running
    const first: string[] = [];
    for (let i = 0; i < 12; i++)
      first.push(
        (
          await (
            await s.call('/v1/jobs/submit', { method: 'POST', key: lister, json: { model: IMAGE, input } })
          ).json()
        ).jobId,
      );
    await eventually(
      async () => (await (await s.call('/v1/jobs?limit=100', { key: lister })).json()).jobs.length === 12,
      5_000,
      'cache',
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { jobs: Array<{ jobId: string }>; nextCursor: string | null } = await (
        await s.call(`/v1/jobs?limit=5${cursor ? `&cursor=${cursor}` : ''}`, { key: lister })
      ).json();
      seen.push(...page.jobs.map((j) => j.jobId));
      cursor = page.nextCursor;
      // A new job between pages is newer than every page so far: it must not shift what follows.
      await s.call('/v1/jobs/submit', { method: 'POST', key: lister, json: { model: IMAGE, input } });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => first.includes(id))).toHaveLength(12);
    const bad = await s.call('/v1/jobs?cursor=garbage', { key: lister });
    expect([bad.status, (await bad.json()).code]).toEqual([400, 'VALIDATION_ERROR']);
    const filtered = await (
      await s.call(`/v1/jobs?status=pending&model=${IMAGE}&limit=2`, { key: lister })
    ).json();
    expect(filtered.jobs).toHaveLength(2);
    s.controller = await s.startController();
  });
});
