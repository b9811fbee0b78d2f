import { describe, expect, it } from 'vitest';
import { API_VERSION, type GenerationJob, type GenerationJobStatus } from '../../k8s/types.ts';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from '../../webhooks/schedule.ts';
import {
  awaitsSameAttempt,
  pendingRetries,
  recordAttempt,
  wantsWebhook,
  webhookEvent,
  webhookId,
  webhookStep,
} from './decide.ts';

const NOW = Date.parse('2030-01-01T10:00:00.000Z');
const iso = (t: number) => new Date(t).toISOString();

function aJob(status: GenerationJobStatus = {}, webhookUrl: string | null = 'https://hooks.example.com/x') {
  const job: GenerationJob = {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    metadata: {
      name: '0b6a4e1c-0000-4000-8000-000000000001',
      uid: '7d1e2f3a-1111-4222-8333-444455556666',
      creationTimestamp: iso(NOW - 60_000),
    },
    spec: {
      account: 'acme',
      model: 'genjobs/reference-image/text-to-image',
      version: 'v1.0',
      input: { prompt: 'x' },
      costMicroCents: 134_000,
      ...(webhookUrl ? { webhookUrl } : {}),
    },
    status,
  };
  return job;
}
const completed = {
  phase: 'completed' as const,
  completedAt: iso(NOW - 1000),
  outputs: [{ url: 'https://f/x.png', type: 'image' as const }],
};

describe('webhookStep', () => {
  it.each([
    ['no webhookUrl', 'none', aJob(completed, null)],
    ['pending job', 'none', aJob({ phase: 'pending' })],
    ['processing job', 'none', aJob({ phase: 'processing' })],
    ['cancelled job (spec 6 notifies on completion and failure only)', 'none', aJob({ phase: 'cancelled' })],
    ['completed, first sight', 'start', aJob(completed)],
    [
      'failed, first sight',
      'start',
      aJob({ phase: 'failed', error: { code: 'GENERATION_FAILED', message: 'x' } }),
    ],
    ['delivered', 'none', aJob({ ...completed, webhook: { id: 'msg_1', state: 'delivered', attempts: 1 } })],
    ['given up', 'none', aJob({ ...completed, webhook: { id: 'msg_1', state: 'failed', attempts: 8 } })],
    [
      'due',
      'deliver',
      aJob({
        ...completed,
        webhook: { id: 'msg_1', state: 'pending', attempts: 1, nextAttemptAt: iso(NOW) },
      }),
    ],
    [
      'not due yet',
      'wait',
      aJob({
        ...completed,
        webhook: { id: 'msg_1', state: 'pending', attempts: 1, nextAttemptAt: iso(NOW + 5000) },
      }),
    ],
  ])('%s → %s', (_, kind, job) => {
    expect(webhookStep(job, NOW).kind).toBe(kind);
    expect(wantsWebhook(job)).toBe(kind !== 'none' || Boolean(job.status?.webhook));
  });

  it('starts with a stable id made from the uid, due now', () => {
    const step = webhookStep(aJob(completed), NOW);
    expect(step).toEqual({
      kind: 'start',
      webhook: {
        id: 'msg_7d1e2f3a111142228333444455556666',
        attempts: 0,
        state: 'pending',
        nextAttemptAt: iso(NOW),
      },
    });
    expect(webhookId(aJob(completed))).toBe('msg_7d1e2f3a111142228333444455556666');
  });

  it('waits exactly until the next attempt', () => {
    const job = aJob({
      ...completed,
      webhook: { id: 'm', state: 'pending', attempts: 2, nextAttemptAt: iso(NOW + 4321) },
    });
    expect(webhookStep(job, NOW)).toEqual({ kind: 'wait', ms: 4321 });
  });
});

describe('webhookEvent', () => {
  it('carries the job record and the completion time, typed by phase', () => {
    expect(webhookEvent(aJob(completed))).toMatchObject({
      type: 'job.completed',
      timestamp: completed.completedAt,
      data: { jobId: aJob().metadata.name, status: 'completed', progress: 100, output: 'https://f/x.png' },
    });
    const failed = aJob({
      phase: 'failed',
      completedAt: iso(NOW),
      error: { code: 'GENERATION_FAILED', message: 'boom' },
    });
    expect(webhookEvent(failed)).toMatchObject({
      type: 'job.failed',
      data: { status: 'failed', error: { code: 'GENERATION_FAILED', message: 'boom' } },
    });
  });
});

describe('recordAttempt', () => {
  const start = { id: 'msg_1', attempts: 0, state: 'pending' as const, nextAttemptAt: iso(NOW) };
  const half = () => 0.5; // no jitter

  it('scales the wait before the next attempt and nothing else', () => {
    const full = recordAttempt(start, { kind: 'http_error', status: 503 }, NOW, half);
    expect(Date.parse(full.nextAttemptAt!) - NOW).toBe(RETRY_SCHEDULE_MS[1]);
    const scaled = recordAttempt(start, { kind: 'http_error', status: 503 }, NOW, half, 0.01);
    expect(Date.parse(scaled.nextAttemptAt!) - NOW).toBe(RETRY_SCHEDULE_MS[1]! * 0.01);
    expect(scaled).toMatchObject({ id: 'msg_1', attempts: 1, state: 'pending', lastResult: 'HTTP 503' });
  });

  it('records success once, keeping the id', () => {
    const next = recordAttempt({ ...start, attempts: 3 }, { kind: 'success', status: 204 }, NOW, half, 0.01);
    expect(next).toEqual({
      id: 'msg_1',
      attempts: 4,
      state: 'delivered',
      lastResult: 'HTTP 204',
      deliveredAt: iso(NOW),
    });
  });

  it('gives up on a refused target at once and after the last scheduled attempt', () => {
    expect(recordAttempt(start, { kind: 'refused', reason: 'loopback' }, NOW, half).state).toBe('failed');
    const last = { ...start, attempts: MAX_ATTEMPTS - 1 };
    expect(recordAttempt(last, { kind: 'timeout' }, NOW, half, 0.01).state).toBe('failed');
  });
});

describe('awaitsSameAttempt', () => {
  const attempted = { id: 'msg_1', attempts: 2, state: 'pending' as const };
  it.each([
    [{ ...attempted }, true],
    [{ ...attempted, nextAttemptAt: iso(NOW) }, true],
    [{ ...attempted, attempts: 3 }, false],
    [{ ...attempted, state: 'delivered' as const }, false],
    [{ ...attempted, id: 'msg_2' }, false],
    [undefined, false],
  ])('%j → %s', (current, want) => {
    expect(awaitsSameAttempt(current, attempted)).toBe(want);
  });
});

it('pendingRetries counts deliveries waiting after a failed attempt', () => {
  const jobs = [
    aJob({ ...completed, webhook: { state: 'pending', attempts: 0 } }),
    aJob({ ...completed, webhook: { state: 'pending', attempts: 2 } }),
    aJob({ ...completed, webhook: { state: 'delivered', attempts: 1 } }),
    aJob(completed),
  ];
  expect(pendingRetries(jobs)).toBe(1);
});
