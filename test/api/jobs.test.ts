import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imbalance } from '../../src/ledger/ops.ts';
import { eventually } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;
let other: string;

beforeAll(async () => {
  svc = await startTestApi('jobs-api');
  key = await svc.account({ name: 'acme' });
  other = await svc.account({ name: 'globex' });
});
afterAll(async () => {
  await svc?.stop();
});

const IMAGE = 'genjobs/reference-image/text-to-image';
const VIDEO = 'genjobs/reference-video/text-to-video';

describe('job API', () => {
  it('submits a job and answers the 2.1 shape, then GET shows it pending', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'a red fox' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual([
      'costMicroCents',
      'estimatedCompletionTime',
      'jobId',
      'requestId',
      'status',
    ]);
    expect(body).toMatchObject({
      status: 'pending',
      costMicroCents: 134_000,
      requestId: res.headers.get('x-request-id'),
    });
    expect(Date.parse(body.estimatedCompletionTime)).toBeGreaterThan(Date.now());

    const get = await svc.call(`/v1/jobs/${body.jobId}`, { key });
    expect(get.status).toBe(200);
    const job = await get.json();
    expect(job).toMatchObject({
      jobId: body.jobId,
      status: 'pending',
      progress: 0,
      output: null,
      outputs: null,
      error: null,
      completedAt: null,
    });
    expect(Date.parse(job.createdAt)).not.toBeNaN();
  });

  it.each([
    [IMAGE, { prompt: 'x' }, 134_000],
    [IMAGE, { prompt: 'x', resolution: '4k' }, 241_200],
    [VIDEO, { prompt: 'x', duration: 8, resolution: '720p', has_sound: true }, 2_400_000],
    [VIDEO, { prompt: 'x' }, 2_400_000],
    [VIDEO, { prompt: 'x', duration: '4', has_sound: 'false' }, 800_000],
  ])('prices %s %j at %d through estimate and submit', async (model, input, cost) => {
    const est = await (
      await svc.call('/v1/jobs/estimate', { method: 'POST', key, json: { model, input } })
    ).json();
    expect(est.estimatedCostMicroCents).toBe(cost);
    expect(est.baseCostMicroCents).toBe(cost);
    expect(est.hasDiscount).toBe(false);
    expect(est.breakdown.reduce((a: number, b: { costMicroCents: number }) => a + b.costMicroCents, 0)).toBe(
      cost,
    );
    const sub = await (
      await svc.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input } })
    ).json();
    expect(sub.costMicroCents).toBe(cost);
  });

  it("the job list carries each pending job's queue position and estimate, as GET does", async () => {
    const mine = await svc.account({ name: 'queued' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key: mine,
        json: { model: VIDEO, input: { prompt: `queued ${i}`, duration: 4 } },
      });
      ids.push((await res.json()).jobId);
    }
    const listed = async () => {
      const page = await (await svc.call('/v1/jobs?limit=10', { key: mine })).json();
      return new Map<string, Record<string, unknown>>(page.jobs.map((j: { jobId: string }) => [j.jobId, j]));
    };
    await eventually(async () => (await listed()).size === 3, 10_000, 'three jobs listed');
    const list = await listed();
    const got = await Promise.all(
      ids.map(async (id) => (await svc.call(`/v1/jobs/${id}`, { key: mine })).json()),
    );
    // Admission order: first submitted first, also within one second (createdAt has whole
    // seconds, ids are random); others' jobs of the variant may be ahead (the queue is the
    // variant's).
    const positions = ids.map((id) => list.get(id)!.queuePosition as number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(3);
    for (const [i, id] of ids.entries()) {
      expect(list.get(id)!.queuePosition).toBe(got[i].queuePosition);
      const listedEta = Date.parse(list.get(id)!.estimatedCompletionTime as string);
      expect(listedEta).toBeGreaterThan(Date.now());
      // The same play of the queue, give or take a replay in between (a free slot starts "now").
      expect(Math.abs(listedEta - Date.parse(got[i].estimatedCompletionTime))).toBeLessThan(5_000);
    }
  });

  it("refuses a submit past the plan's concurrency with Retry-After: when the first unfinished job should end", async () => {
    const free = await svc.account({ name: 'two-at-once', plan: 'free' });
    const submit = () =>
      svc.call('/v1/jobs/submit', {
        method: 'POST',
        key: free,
        json: { model: IMAGE, input: { prompt: 'r' } },
      });
    for (let i = 0; i < 2; i++) expect((await submit()).status).toBe(200);
    const listed = async () => (await (await svc.call('/v1/jobs', { key: free })).json()).jobs;
    await eventually(async () => (await listed()).length === 2, 10_000, 'both jobs cached');
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe('CONCURRENT_JOBS_EXCEEDED');
    const first = Math.min(
      ...(await listed()).map((j: { estimatedCompletionTime: string }) =>
        Date.parse(j.estimatedCompletionTime),
      ),
    );
    const expected = Math.min(60, Math.max(1, Math.ceil((first - Date.now()) / 1000)));
    // A free image slot runs 30 s by the catalog: far from the old quarter of a run (8 s).
    expect(expected).toBeGreaterThanOrEqual(25);
    expect(Math.abs(Number(refused.headers.get('retry-after')) - expected)).toBeLessThanOrEqual(2);
  });

  it('a burst past the plan gets 429s, never a 402, while the balance pays for every job the plan allows', async () => {
    // pro runs 20 at once; the grant pays for 22 jobs: the 20 past the plan must not hold the
    // credit the 20 within it need (a 402 is not retryable: a client would give up on credit it has).
    const cost = 134_000;
    const burst = await svc.account({ name: 'burst-co', plan: 'pro', grantMicroCents: 22 * cost });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        svc.call('/v1/jobs/submit', {
          method: 'POST',
          key: burst,
          json: { model: IMAGE, input: { prompt: `b${i}` } },
        }),
      ),
    );
    const codes = await Promise.all(
      answers.map(async (r) => (r.ok ? 200 : `${r.status} ${(await r.json()).code}`)),
    );
    const count = (what: unknown) => codes.filter((c) => c === what).length;
    expect([count(200), count('429 CONCURRENT_JOBS_EXCEEDED')]).toEqual([20, 20]);
    const account = await eventually(
      async () => {
        const a = (await (await svc.call('/v1/account', { key: burst })).json()) as Record<string, number>;
        return a.heldMicroCents === 20 * cost && a;
      },
      10_000,
      'the leases given back',
    );
    expect(account.balanceMicroCents).toBe(2 * cost);
  });

  it('refuses a submit on a plan the service does not have for good (403, not retryable), making nothing', async () => {
    const gilded = await svc.account({ name: 'gilded', plan: 'gold' });
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key: gilded,
      json: { model: IMAGE, input: { prompt: 'g' } },
    });
    const problem = await res.json();
    expect([res.status, problem.code, problem.retryable]).toEqual([403, 'UNAUTHORIZED_ACCESS', false]);
    expect(problem.detail).toMatch(/plan gold is not one this service has \(free, pro, enterprise\)/);
    expect(res.headers.get('retry-after')).toBeNull();
    expect((await svc.r.jobs.listAll()).filter((j) => j.spec.account === 'gilded')).toEqual([]);
  });

  it('cancels a pending job with a full refund, once; a second cancel is a 409', async () => {
    // Earlier submits' leases have given back their unused credit (1 s terms).
    await new Promise((r) => setTimeout(r, 2_100));
    const before = (await svc.r.accounts.get('acme'))!.status!.balanceMicroCents!;
    const { jobId } = await (
      await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: IMAGE, input: { prompt: 'c' } },
      })
    ).json();
    const res = await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jobId, status: 'cancelled', refundedMicroCents: 134_000 });
    const again = await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
    expect(again.status).toBe(409);
    const refused = await again.json();
    expect([refused.code, refused.detail]).toEqual([
      'JOB_CANNOT_BE_CANCELLED',
      `job ${jobId} is cancelled; only pending jobs can be cancelled`,
    ]);
    // Refunded at once; the rest of the credit leased for it returns at the end of the lease's term.
    await eventually(
      async () => (await svc.r.accounts.get('acme'))!.status!.balanceMicroCents === before,
      5_000,
      'the refund and the lease returned',
    );
    expect(imbalance((await svc.r.accounts.get('acme'))!.status)).toBe(0);
    const job = await (await svc.call(`/v1/jobs/${jobId}`, { key })).json();
    expect(job.status).toBe('cancelled');
    expect(job.completedAt).not.toBeNull();
  });

  it('takes a webhookUrl whose scheme is in capitals, as the URL parser reads it', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' }, webhookUrl: 'HTTPS://Hooks.Example.com/genjobs' },
    });
    expect(res.status).toBe(200);
    const job = await svc.r.jobs.get((await res.json()).jobId);
    expect(job?.spec.webhookUrl).toBe('https://hooks.example.com/genjobs');
  });

  it('keeps accounts apart: another account gets 403 UNAUTHORIZED_ACCESS, unknown ids 404', async () => {
    const { jobId } = await (
      await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: IMAGE, input: { prompt: 'mine' } },
      })
    ).json();
    for (const [path, method] of [
      [`/v1/jobs/${jobId}`, 'GET'],
      [`/v1/jobs/${jobId}/cancel`, 'POST'],
    ] as const) {
      const res = await svc.call(path, { method, key: other });
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('UNAUTHORIZED_ACCESS');
    }
    const missing = await svc.call('/v1/jobs/00000000-0000-0000-0000-000000000000', { key });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'JOB_NOT_FOUND', status: 404, retryable: false });
    // An id that cannot be one is not named back (5,000 characters, a NUL).
    for (const id of ['x'.repeat(5_000), 'a%00b']) {
      const odd = await svc.call(`/v1/jobs/${id}`, { key });
      expect(await odd.json()).toMatchObject({ code: 'JOB_NOT_FOUND', detail: 'no job has this id' });
    }
  });

  it.each([
    [
      'unknown model',
      { model: 'genjobs/nope/text-to-image', input: { prompt: 'x' } },
      404,
      'MODEL_NOT_FOUND',
    ],
    ['missing prompt', { model: IMAGE, input: {} }, 422, 'INVALID_INPUT'],
    ['bad resolution', { model: IMAGE, input: { prompt: 'x', resolution: '8k' } }, 422, 'INVALID_INPUT'],
    [
      'http webhook',
      { model: IMAGE, input: { prompt: 'x' }, webhookUrl: 'http://example.com/hook' },
      422,
      'INVALID_INPUT',
    ],
    [
      'unknown top-level field',
      { model: IMAGE, input: { prompt: 'x' }, priority: 'high' },
      422,
      'INVALID_INPUT',
    ],
    ['unknown version', { model: IMAGE, version: 'v9.9', input: { prompt: 'x' } }, 404, 'MODEL_NOT_FOUND'],
  ])('refuses %s', async (_name, json, status, code) => {
    const res = await svc.call('/v1/jobs/submit', { method: 'POST', key, json });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const body = await res.json();
    expect(body.code).toBe(code);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('lists every failing input field as a JSON pointer', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { resolution: '8k', extra: 1 } },
    });
    const body = await res.json();
    const pointers = body.errors.map((e: { pointer: string }) => e.pointer).sort();
    expect(pointers).toEqual(['/input/extra', '/input/prompt', '/input/resolution']);
  });

  it('answers malformed JSON, a wrong content type and an oversized body with 400, 415 and 413', async () => {
    const bad = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect([bad.status, (await bad.json()).code]).toEqual([400, 'MALFORMED_REQUEST']);
    const text = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect([text.status, (await text.json()).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const big = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x'.repeat(300_000) } },
    });
    expect([big.status, (await big.json()).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it.each(['null', '""', '7', '[1,2]'])(
    'answers valid JSON that is not an object (%s) as 422, like any wrong shape',
    async (body) => {
      const res = await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body,
      });
      const problem = await res.json();
      expect([res.status, problem.code, problem.errors]).toEqual([
        422,
        'INVALID_INPUT',
        [{ pointer: '', message: 'must be an object' }],
      ]);
    },
  );

  it('tells a key without check_status that a job is past pending, not which status it has', async () => {
    const submitOnly = await svc.account({ name: 'submitter' }, ['submit_job']);
    const { jobId } = await (
      await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key: submitOnly,
        json: { model: IMAGE, input: { prompt: 's' } },
      })
    ).json();
    expect((await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key: submitOnly })).status).toBe(
      200,
    );
    const again = await svc.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key: submitOnly });
    const refused = await again.json();
    expect([again.status, refused.code, refused.detail]).toEqual([
      409,
      'JOB_CANNOT_BE_CANCELLED',
      `job ${jobId} is no longer pending; only pending jobs can be cancelled`,
    ]);
  });

  it('requires credentials and scopes', async () => {
    const none = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect([none.status, (await none.json()).code]).toEqual([401, 'UNAUTHENTICATED']);
    // A 401 says how to authenticate.
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="genjobs"');
    const wrong = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key: `gjk_${'A'.repeat(40)}`,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect([wrong.status, (await wrong.json()).code]).toEqual([401, 'INVALID_API_KEY']);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="genjobs", error="invalid_token"');
    const models = await svc.call('/v1/models');
    expect([models.status, models.headers.get('www-authenticate')]).toEqual([
      401,
      'ApiKey realm="genjobs", header="x-api-key"',
    ]);
    const readOnly = await svc.account({ name: 'reader' }, ['check_status']);
    const scoped = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key: readOnly,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect([scoped.status, (await scoped.json()).code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });
});

describe('estimate with a discount', () => {
  it('shows hasDiscount, discounted and a breakdown that adds up, and submit charges the discounted price', async () => {
    const key = await svc.account({ name: 'vip', discountPercent: 20 });
    const est = await (
      await svc.call('/v1/jobs/estimate', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { duration: 8 } },
      })
    ).json();
    expect(est).toMatchObject({
      baseCostMicroCents: 2_400_000,
      estimatedCostMicroCents: 1_920_000,
      hasDiscount: true,
      discounted: { type: 'account', percentage: 20, savedMicroCents: 480_000 },
    });
    expect(est.breakdown.reduce((a: number, b: { costMicroCents: number }) => a + b.costMicroCents, 0)).toBe(
      1_920_000,
    );
    const sub = await (
      await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { prompt: 'x' } },
      })
    ).json();
    expect(sub.costMicroCents).toBe(1_920_000);
    const unknown = await svc.call('/v1/jobs/estimate', {
      method: 'POST',
      key,
      json: { model: 'nope/nope' },
    });
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, 'MODEL_NOT_FOUND']);
  });

  it("a model's two-part slug names no variant: submit and estimate refuse it, naming the variants; no job is made", async () => {
    const jobs = async () => (await (await svc.call('/v1/jobs?limit=100', { key })).json()).jobs.length;
    const before = await jobs();
    for (const path of ['/v1/jobs/submit', '/v1/jobs/estimate']) {
      const res = await svc.call(path, {
        method: 'POST',
        key,
        json: { model: 'genjobs/reference-image', input: { prompt: 'edit please' } },
      });
      const body = await res.json();
      expect([res.status, body.code]).toEqual([404, 'MODEL_NOT_FOUND']);
      expect(body.detail).toContain('genjobs/reference-image/text-to-image');
      expect(body.detail).toContain('genjobs/reference-image/edit-image');
      expect(body.errors).toEqual([expect.objectContaining({ pointer: '/model' })]);
    }
    expect(await jobs()).toBe(before);
  });
});
