import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

const model = 'genjobs/reference-image/text-to-image';

describe('per-account request rate', () => {
  let s: TestService;
  beforeAll(async () => {
    // One token per 5 s: slow enough that a loaded machine cannot refill the bucket mid-test.
    s = await startTestApi('limits-rate', { GENJOBS_RATE_LIMIT_RPS: '0.2', GENJOBS_RATE_LIMIT_BURST: '3' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('answers 429 RATE_LIMITED with Retry-After past the burst, for that account only', async () => {
    const a = await s.account({ name: 'noisy' });
    const b = await s.account({ name: 'quiet' });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await s.call('/v1/jobs', { key: a })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await s.call('/v1/jobs', { key: a });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    // Uploads wrap their errors, the limit's too.
    const presign = await s.call('/v1/uploads/presign', {
      method: 'POST',
      key: a,
      json: { filename: 'a.png', contentType: 'image/png' },
    });
    expect(presign.status).toBe(429);
    expect(await presign.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect((await s.call('/v1/jobs', { key: b })).status).toBe(200);
    // A token is back once Retry-After has passed.
    await new Promise((r) => setTimeout(r, retryAfter * 1_000 + 200));
    expect((await s.call('/v1/jobs', { key: a })).status).toBe(200);
  });
});

/** A POST to a path the OpenAPI document does not list (s.call would refuse to check it). */
const unlisted = (s: TestService, path: string, key: string, json: unknown) =>
  fetch(`${s.api.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });

describe('per-account caps on live resources', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestApi('limits-caps', {
      GENJOBS_MAX_LIVE_JOBS: '2',
      GENJOBS_MAX_LIVE_UPLOADS: '3',
      GENJOBS_MAX_UPLOAD_BYTES: String(25 * 1024 * 1024),
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses a submit past the cap on unfinished jobs, with nothing created or charged', async () => {
    const key = await s.account({ name: 'busy', plan: 'enterprise' });
    const submit = () =>
      s.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input: { prompt: 'x' } } });
    expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(200);
    await eventually(async () => (await (await s.call('/v1/jobs', { key })).json()).jobs.length === 2);
    const before = (await s.r.accounts.get('busy'))?.status?.balanceMicroCents;
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await refused.json()).toMatchObject({ code: 'CONCURRENT_JOBS_EXCEEDED' });
    // The same route spelled another way Express still routes is capped the same.
    for (const path of ['/v1/jobs/submit/', '/V1/Jobs/Submit']) {
      const res = await unlisted(s, path, key, { model, input: { prompt: 'x' } });
      expect([path, res.status]).toEqual([path, 429]);
    }
    expect((await s.r.jobs.list()).items.filter((j) => j.spec.account === 'busy')).toHaveLength(2);
    expect((await s.r.accounts.get('busy'))?.status?.balanceMicroCents).toBe(before);
    // Another account is not affected.
    const other = await s.account({ name: 'calm', plan: 'enterprise' });
    expect(
      (
        await s.call('/v1/jobs/submit', {
          method: 'POST',
          key: other,
          json: { model, input: { prompt: 'y' } },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses a presign past the count or byte quota of live uploads', async () => {
    const key = await s.account({ name: 'uploader' });
    const presign = (contentType: string) =>
      s.call('/v1/uploads/presign', { method: 'POST', key, json: { filename: 'f', contentType } });
    const live = async (n: number) =>
      eventually(
        async () =>
          (await s.r.uploads.list()).items.filter((u) => u.spec.account === 'uploader').length === n,
      );
    // 10 MB + 10 MB of 25 MB: a third image (another 10 MB) would pass the byte quota.
    expect((await presign('image/png')).status).toBe(200);
    expect((await presign('image/png')).status).toBe(200);
    await live(2);
    await new Promise((r) => setTimeout(r, 300));
    const tooBig = await presign('image/png');
    expect(tooBig.status).toBe(429);
    const problem = await tooBig.json();
    expect(problem).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(problem.detail).toMatch(/quota of 26214400/);

    // Audio counts 50 MB: refused too; nothing was created for either refusal.
    expect((await presign('audio/mpeg')).status).toBe(429);
    for (const path of ['/v1/uploads/presign/', '/V1/Uploads/Presign']) {
      const res = await unlisted(s, path, key, { filename: 'f', contentType: 'image/png' });
      expect([path, res.status]).toEqual([path, 429]);
      expect(await res.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    }
    expect((await s.r.uploads.list()).items.filter((u) => u.spec.account === 'uploader')).toHaveLength(2);
  });

  it('holds the live-jobs cap against a burst that starts without credit leased (12 at once get 2)', async () => {
    const key = await s.account({ name: 'rush', plan: 'enterprise' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input: { prompt: `rush ${i}` } } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(2);
    expect(statuses.filter((x) => x === 429)).toHaveLength(10);
    const refused = await answers.find((a) => a.status === 429)!.json();
    expect(refused).toMatchObject({ code: 'CONCURRENT_JOBS_EXCEEDED', retryable: true });
    expect((await s.r.jobs.list()).items.filter((j) => j.spec.account === 'rush')).toHaveLength(2);
  });

  it('counts every presign of a burst, not only those its cache shows: 20 at once get 2 places of 25 MB', async () => {
    const key = await s.account({ name: 'burst' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.call('/v1/uploads/presign', {
          method: 'POST',
          key,
          json: { filename: 'f', contentType: 'image/png' },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(2);
    expect(statuses.filter((x) => x === 429)).toHaveLength(18);
    expect((await s.r.uploads.list()).items.filter((u) => u.spec.account === 'burst')).toHaveLength(2);
  });
});

describe('job input bounds', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestApi('limits-input');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('answers 422 INVALID_INPUT, not 500, to deeply nested input, and a short answer to many bad items', async () => {
    const key = await s.account({ name: 'fuzzer' });
    // Written out by hand: JSON.stringify itself would overflow the stack on it.
    const deep = `${'['.repeat(5_000)}"x"${']'.repeat(5_000)}`;
    const nested = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${model}","input":{"prompt":"x","image_urls":${deep}}}`,
    });
    expect(nested.status).toBe(422);
    expect(await nested.json()).toMatchObject({ code: 'INVALID_INPUT' });

    const many = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model, input: { prompt: 'x', image_urls: Array.from({ length: 30_000 }, () => 1) } },
    });
    expect(many.status).toBe(422);
    const text = await many.text();
    expect(text.length).toBeLessThan(8_000);
    expect(JSON.parse(text).errors).toHaveLength(20);
  });

  it('refuses a __proto__ field with its pointer instead of dropping it, and charges nothing', async () => {
    const key = await s.account({ name: 'proto' });
    for (const [body, pointer] of [
      [`{"model":"${model}","input":{"prompt":"x","__proto__":{"resolution":"4k"}}}`, '/input/__proto__'],
      [
        `{"model":"${model}","input":{"prompt":"x","image_urls":[{"__proto__":1}]}}`,
        '/input/image_urls/0/__proto__',
      ],
      [`{"model":"${model}","input":{"prompt":"x"},"__proto__":{}}`, '/__proto__'],
    ] as const) {
      const res = await s.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status, body).toBe(422);
      expect(await res.json()).toMatchObject({ code: 'INVALID_INPUT', errors: [{ pointer }] });
    }
    const estimate = await s.call('/v1/jobs/estimate', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${model}","input":{"__proto__":{"resolution":"4k"}}}`,
    });
    expect(estimate.status).toBe(422);
    expect((await s.r.jobs.list()).items.filter((j) => j.spec.account === 'proto')).toHaveLength(0);
  });
});
