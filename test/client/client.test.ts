import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type GenjobsClient, GenjobsError, type Job } from '../../src/client/index.ts';
import { type E2e, startE2e } from '../support/e2e.ts';

let s: E2e;
let genjobs: GenjobsClient;
const IMAGE = 'genjobs/reference-image/text-to-image';
const EDIT = 'genjobs/reference-image/edit-image';

beforeAll(async () => {
  s = await startE2e('client', { slots: 2 });
  genjobs = createClient({ baseUrl: s.url, apiKey: await s.account({ name: 'acme' }) });
});
afterAll(async () => {
  await s?.stop();
});

describe('genjobs/client against the real service', () => {
  it('jobs.run submits, follows the events and resolves with the finished job', async () => {
    const updates: Job[] = [];
    const job = await genjobs.jobs.run(
      IMAGE,
      { prompt: 'a lighthouse' },
      { onUpdate: (j) => updates.push(j) },
    );
    expect(job).toMatchObject({ status: 'completed', progress: 100, model: IMAGE });
    const png = await fetch(job.output!);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(updates.at(-1)).toEqual(job);
    expect(updates.length).toBeGreaterThanOrEqual(1);
  });

  it('jobs.run falls back to polling when a proxy blocks event streams', async () => {
    const blocking: typeof fetch = (input, init) =>
      String(input).endsWith('/events')
        ? Promise.resolve(
            new Response('<html>blocked</html>', { status: 404, headers: { 'content-type': 'text/html' } }),
          )
        : fetch(input, init);
    const client = createClient({
      baseUrl: s.url,
      apiKey: await s.account({ name: 'proxied' }),
      fetch: blocking,
    });
    const job = await client.jobs.run(IMAGE, { prompt: 'polled' });
    expect(job.status).toBe('completed');
  });

  it('a retried submit with the same Idempotency-Key makes one job', async () => {
    const a = await genjobs.jobs.submit(
      { model: IMAGE, input: { prompt: 'once' } },
      { idempotencyKey: 'k-once' },
    );
    const b = await genjobs.jobs.submit(
      { model: IMAGE, input: { prompt: 'once' } },
      { idempotencyKey: 'k-once' },
    );
    expect(b.jobId).toBe(a.jobId);
    await genjobs.jobs.wait(a.jobId);
  });

  it('uploads.upload presigns and PUTs; the fileUrl works as job input', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc3366' } })
      .png()
      .toBuffer();
    const file = await genjobs.uploads.upload(new Uint8Array(png), {
      contentType: 'image/png',
      filename: 'in.png',
    });
    expect((await genjobs.uploads.get(file.fileId)).status).toBe('pending');
    const job = await genjobs.jobs.run(EDIT, { prompt: 'make it blue', image: file.fileUrl });
    expect(job.status).toBe('completed');
  });

  it('uploads.upload retries a PUT that got no answer, and a PUT that keeps failing is a GenjobsError', async () => {
    let dropped = 0;
    const dropFirstPut: typeof fetch = (input, init) => {
      if (init?.method === 'PUT' && dropped++ === 0) return Promise.reject(new TypeError('fetch failed'));
      return fetch(input, init);
    };
    const flaky = createClient({
      baseUrl: s.url,
      apiKey: await s.account({ name: 'flaky' }),
      fetch: dropFirstPut,
      sleep: async () => {},
    });
    const file = await flaky.uploads.upload(new Uint8Array([1, 2, 3]), {
      contentType: 'image/png',
      filename: 'x.png',
    });
    expect(dropped).toBe(2);
    expect((await flaky.uploads.get(file.fileId)).status).toBe('pending');

    const down: typeof fetch = (input, init) =>
      init?.method === 'PUT' ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
    const broken = createClient({
      baseUrl: s.url,
      apiKey: await s.account({ name: 'broken' }),
      fetch: down,
      sleep: async () => {},
      maxRetries: 2,
    });
    const err = await broken.uploads
      .upload(new Uint8Array([1]), { contentType: 'image/png', filename: 'y.png' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(GenjobsError);
    expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
    expect(err.message).toContain(new URL(s.url).origin);
  });

  it('has a method for every other endpoint', async () => {
    const models = await genjobs.catalog.models();
    expect(models.map((m) => m.slug)).toContain(IMAGE);
    expect((await genjobs.catalog.model(IMAGE)).slug).toBe(IMAGE);
    const providers = await genjobs.catalog.providers();
    expect((await genjobs.catalog.provider(providers[0]!.id)).models.length).toBeGreaterThan(0);
    expect((await genjobs.catalog.capabilityGroups()).length).toBeGreaterThan(0);
    expect((await genjobs.catalog.categories()).length).toBeGreaterThan(0);
    expect((await genjobs.models.list()).models.length).toBeGreaterThan(0);
    expect((await genjobs.models.byProvider(providers[0]!.id)).provider.id).toBe(providers[0]!.id);
    const estimate = await genjobs.jobs.estimate({ model: IMAGE, input: { resolution: '4k' } });
    expect(estimate.estimatedCostMicroCents).toBe(241_200);
    const list = await genjobs.jobs.list({ limit: 2 });
    expect(list.jobs.length).toBeLessThanOrEqual(2);
    expect((await genjobs.openapi()).openapi).toBe('3.1.0');
    const account = await genjobs.account.get();
    expect(account).toMatchObject({ account: 'acme', plan: 'pro' });
    expect(account.balanceMicroCents + account.heldMicroCents + account.spentMicroCents).toBe(100_000_000);
  });

  it('errors are GenjobsError with status, code, requestId and retryable', async () => {
    const err = await genjobs.jobs.estimate({ model: 'nobody/nothing/text-to-image' }).catch((e) => e);
    expect(err).toBeInstanceOf(GenjobsError);
    expect(err).toMatchObject({ status: 404, code: 'MODEL_NOT_FOUND', retryable: false });
    expect(err.requestId).toMatch(/\S/);
    const done = await genjobs.jobs.run(IMAGE, { prompt: 'finished' });
    await expect(genjobs.jobs.cancel(done.jobId)).rejects.toMatchObject({
      status: 409,
      code: 'JOB_CANNOT_BE_CANCELLED',
    });
    const anonymous = createClient({ baseUrl: s.url });
    await expect(anonymous.jobs.get(done.jobId)).rejects.toMatchObject({ status: 401 });
  });

  it('aborting the signal stops the waiting', async () => {
    const ac = new AbortController();
    const { jobId } = await genjobs.jobs.submit({ model: IMAGE, input: { prompt: 'abandoned' } });
    const waiting = genjobs.jobs.wait(jobId, { signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
