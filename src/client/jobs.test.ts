import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { UPLOAD_CONTENT_TYPES } from '../k8s/types.ts';
import { maxSizeOf } from '../uploads/policy.ts';
import { Http } from './http.ts';
import { Jobs } from './jobs.ts';
import { maxUploadBytes, putTimeoutMs, UploadsApi } from './resources.ts';
import { closeServers, problem, scripted } from './test-server.ts';

afterEach(closeServers);

const job = (status: string) => ({ jobId: 'j1', status, model: 'm', createdAt: '2026-01-01T00:00:00Z' });
const event = (id: string, status: string) =>
  `id: ${id}\nevent: job\ndata: ${JSON.stringify(job(status))}\n\n`;

describe('Jobs', () => {
  it('resumes an event stream that stays silent past streamIdleTimeoutMs, with Last-Event-ID', async () => {
    const { url, seen } = await scripted([
      // A pending record, then nothing: no heartbeat, no end (a proxy holding a dead stream).
      (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).write(event('1', 'pending')),
      (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(event('2', 'completed')),
    ]);
    const jobs = new Jobs(new Http({ baseUrl: url, streamIdleTimeoutMs: 300 }));
    const statuses: string[] = [];
    for await (const j of jobs.events('j1')) statuses.push(j.status);
    expect(statuses).toEqual(['pending', 'completed']);
    expect(seen.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
  });

  it('heartbeats keep a quiet stream open', async () => {
    const { url, seen } = await scripted([
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(event('1', 'pending'));
        const beat = setInterval(() => res.write(': heartbeat\n\n'), 100);
        setTimeout(() => {
          clearInterval(beat);
          res.end(event('2', 'completed'));
        }, 700);
      },
    ]);
    const jobs = new Jobs(new Http({ baseUrl: url, streamIdleTimeoutMs: 300 }));
    const statuses: string[] = [];
    for await (const j of jobs.events('j1')) statuses.push(j.status);
    expect(statuses).toEqual(['pending', 'completed']);
    expect(seen).toHaveLength(1);
  });

  it('refuses an empty, . or .. job id before any request (GET /v1/jobs/ is the job list)', async () => {
    const { url, seen } = await scripted([]);
    const jobs = new Jobs(new Http({ baseUrl: url }));
    for (const id of ['', '.', '..']) {
      await expect(jobs.get(id)).rejects.toThrow(/a job id cannot be/);
      await expect(jobs.cancel(id)).rejects.toThrow(TypeError);
      await expect(jobs.wait(id)).rejects.toThrow(TypeError);
    }
    expect(seen).toHaveLength(0);
  });

  it('refuses a blank Idempotency-Key, which would be sent as none and retried as if it were one', async () => {
    const { url, seen } = await scripted([]);
    const jobs = new Jobs(new Http({ baseUrl: url }));
    await expect(jobs.submit({ model: 'm', input: {} }, { idempotencyKey: ' ' })).rejects.toThrow(
      /idempotencyKey cannot be blank/,
    );
    expect(seen).toHaveLength(0);
  });
});

describe('Jobs.cancel', () => {
  const cancelled = (res: ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...job('cancelled'), costMicroCents: 900, refundedMicroCents: 900 }));
  const instant = { sleep: async () => {} };

  it('a retry that meets the job cancelled (the first answer, a 503, came after the cancel landed) answers the cancellation', async () => {
    const { url, seen } = await scripted([
      problem(503, 'UNAVAILABLE', true),
      problem(409, 'JOB_CANNOT_BE_CANCELLED', false),
      cancelled,
    ]);
    const jobs = new Jobs(new Http({ baseUrl: url, ...instant }));
    expect(await jobs.cancel('j1')).toEqual({ jobId: 'j1', status: 'cancelled', refundedMicroCents: 900 });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/jobs/j1/cancel',
      'POST /v1/jobs/j1/cancel',
      'GET /v1/jobs/j1',
    ]);
  });

  it('a first cancel of a job that is no longer pending is the 409, as the spec says', async () => {
    const { url, seen } = await scripted([problem(409, 'JOB_CANNOT_BE_CANCELLED', false), cancelled]);
    const jobs = new Jobs(new Http({ baseUrl: url, ...instant }));
    await expect(jobs.cancel('j1')).rejects.toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', attempts: 1 });
    expect(seen).toHaveLength(1);
  });

  it('a retry that meets the job running or done is still the 409', async () => {
    const { url } = await scripted([
      problem(503, 'UNAVAILABLE', true),
      problem(409, 'JOB_CANNOT_BE_CANCELLED', false),
      (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(job('processing'))),
    ]);
    const jobs = new Jobs(new Http({ baseUrl: url, ...instant }));
    await expect(jobs.cancel('j1')).rejects.toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', attempts: 2 });
  });
});

describe('UploadsApi.upload', () => {
  it('refuses a file larger than its type may be before presigning: nothing counts against the quota', async () => {
    const { url, seen } = await scripted([]);
    const uploads = new UploadsApi(new Http({ baseUrl: url }));
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    await expect(
      uploads.upload(big, { contentType: 'image/png', filename: 'big.png' }),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
      retryable: false,
    });
    expect(seen).toEqual([]);
  });

  // The client imports nothing outside src/client, so it keeps its own copy of spec 8's
  // sizes: held here to the service's table, type by type.
  it.each(UPLOAD_CONTENT_TYPES)('%s may have what the service allows', (type) => {
    expect(maxUploadBytes(type)).toBe(maxSizeOf(type));
  });
});

describe('putTimeoutMs', () => {
  it.each([
    [60_000, 0, 60_000],
    [60_000, 1, 61_000],
    [60_000, 32_768, 61_000],
    [60_000, 100 * 1024 * 1024, 60_000 + 3_200_000],
  ])('timeout %i, %i bytes: %i ms', (timeoutMs, bytes, expected) => {
    expect(putTimeoutMs(timeoutMs, bytes)).toBe(expected);
  });
});

describe('Jobs.run over a network that comes and goes', () => {
  const json = (body: unknown) => (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const drop = (res: ServerResponse) => res.socket?.destroy();

  it('an error names the Idempotency-Key it used, so calling run again makes no second job', async () => {
    const { url, seen } = await scripted([drop, drop, drop]);
    const jobs = new Jobs(new Http({ baseUrl: url, maxRetries: 2, sleep: async () => {} }));
    const err = await jobs.run('genjobs/reference-image/text-to-image', { prompt: 'p' }).catch((e) => e);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', idempotencyKey: expect.any(String) });
    expect(err.jobId).toBeUndefined();
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual([
      err.idempotencyKey,
      err.idempotencyKey,
      err.idempotencyKey,
    ]);
  });

  it('keeps polling through an outage shorter than offlineToleranceMs; past it, the error names the job', async () => {
    const down = problem(503, 'HTTP_503', true);
    const { url } = await scripted([
      json({
        jobId: 'j1',
        status: 'pending',
        costMicroCents: 1,
        estimatedCompletionTime: null,
        requestId: 'r',
      }),
      // Each poll's get makes 1 + maxRetries attempts: two whole polls fail, then it answers.
      down,
      down,
      down,
      down,
      json(job('completed')),
    ]);
    const jobs = new Jobs(new Http({ baseUrl: url, maxRetries: 1, sleep: async () => {} }));
    const done = await jobs.run('m', {}, { stream: false, offlineToleranceMs: 60_000 });
    expect(done.status).toBe('completed');

    const { url: gone } = await scripted([
      json({
        jobId: 'j2',
        status: 'pending',
        costMicroCents: 1,
        estimatedCompletionTime: null,
        requestId: 'r',
      }),
      ...Array.from({ length: 20 }, () => down),
    ]);
    const err = await new Jobs(new Http({ baseUrl: gone, maxRetries: 1, sleep: async () => {} }))
      .run('m', {}, { stream: false, offlineToleranceMs: 0 })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'HTTP_503', jobId: 'j2', idempotencyKey: expect.any(String) });
  });
});

describe('UploadsApi.upload on a slow link', () => {
  it('a PUT given up on whose bytes landed whole is a success, not a second upload', async () => {
    const presign = (base: string) => (res: ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          success: true,
          data: {
            uploadUrl: `${base}/files/u1?sig=x`,
            fileUrl: `${base}/files/u1`,
            fileId: 'u1',
            expiresAt: '',
            maxSize: 10,
          },
        }),
      );
    const answers: Array<(res: ServerResponse) => void> = [];
    const { url, seen } = await scripted(answers);
    answers.push(
      presign(url),
      problem(500, 'HTTP_500', false), // the PUT's answer lost (a proxy's 500)
      (res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: true, data: { fileId: 'u1', uploaded: true, sizeBytes: 4 } })),
    );
    const uploads = new UploadsApi(new Http({ baseUrl: url, sleep: async () => {} }));
    const r = await uploads.upload(new Uint8Array([1, 2, 3, 4]), {
      contentType: 'image/png',
      filename: 'a.png',
    });
    expect(r.fileId).toBe('u1');
    expect(seen.map((q) => `${q.method} ${q.url?.split('?')[0]}`)).toEqual([
      'POST /v1/uploads/presign',
      'PUT /files/u1',
      'GET /v1/uploads/u1',
    ]);
  });
});
