import { describe, expect, it } from 'vitest';
import { API_VERSION, type GenerationJob, type JobPhase, type Upload } from '../../k8s/types.ts';
import { decideJobArchive, decideUploadArchive } from './decide.ts';

const FINISHED = Date.parse('2026-11-20T10:00:00Z');
const KEEP = 600_000;

function job(phase: JobPhase, o: { webhookUrl?: string; webhook?: 'pending' | 'delivered' | 'failed' } = {}) {
  return {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    metadata: { name: 'j', creationTimestamp: '2026-11-20T09:59:00Z', resourceVersion: '7' },
    spec: { account: 'a', model: 'm', version: 'v', input: {}, costMicroCents: 1, webhookUrl: o.webhookUrl },
    status: {
      phase,
      completedAt: new Date(FINISHED).toISOString(),
      ...(o.webhook ? { webhook: { state: o.webhook } } : {}),
    },
  } as GenerationJob;
}

const ready = {
  podsStopped: true,
  settled: true,
  archived: false,
  now: FINISHED + 1_000,
  keepFinishedMs: KEEP,
};

describe('decideJobArchive', () => {
  it.each([
    ['a pending job', { job: job('pending') }, { kind: 'none' }],
    ['a processing job', { job: job('processing') }, { kind: 'none' }],
    [
      'a finished job whose Pod still runs',
      { job: job('failed'), podsStopped: false },
      { kind: 'wait', for: 'pod' },
    ],
    [
      'a finished job whose charge is not written yet',
      { job: job('completed'), settled: false },
      { kind: 'wait', for: 'settlement' },
    ],
    [
      'a job whose webhook still retries',
      { job: job('completed', { webhookUrl: 'https://x', webhook: 'pending' }) },
      { kind: 'wait', for: 'webhook' },
    ],
    [
      'a job whose webhook has not started yet',
      { job: job('failed', { webhookUrl: 'https://x' }) },
      { kind: 'wait', for: 'webhook' },
    ],
    [
      'a job whose webhook was delivered',
      { job: job('completed', { webhookUrl: 'https://x', webhook: 'delivered' }) },
      { kind: 'archive' },
    ],
    [
      'a job whose webhook was given up',
      { job: job('failed', { webhookUrl: 'https://x', webhook: 'failed' }) },
      { kind: 'archive' },
    ],
    // Cancelled jobs send no webhook even with a URL.
    [
      'a cancelled job with a webhook URL',
      { job: job('cancelled', { webhookUrl: 'https://x' }) },
      { kind: 'archive' },
    ],
    [
      'an archived job within keepFinished',
      { job: job('completed'), archived: true },
      { kind: 'keep', ms: KEEP - 1_000 },
    ],
    [
      'an archived job past keepFinished',
      { job: job('completed'), archived: true, now: FINISHED + KEEP },
      { kind: 'delete' },
    ],
    // Never a delete without the archive holding this very version.
    [
      'a job past keepFinished not archived (yet, or since it changed)',
      { job: job('completed'), now: FINISHED + KEEP * 10 },
      { kind: 'archive' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(decideJobArchive({ ...ready, ...input })).toEqual(expected);
  });
});

describe('decideUploadArchive', () => {
  const upload = (phase: 'pending' | 'expired') =>
    ({
      apiVersion: API_VERSION,
      kind: 'Upload',
      metadata: { name: 'u' },
      spec: { account: 'a', expiresAt: new Date(FINISHED).toISOString() },
      status: { phase },
    }) as unknown as Upload;

  it('archives an expired upload, keeps it, then deletes it; leaves a live one alone', () => {
    const base = { now: FINISHED + 1, keepFinishedMs: KEEP };
    expect(decideUploadArchive({ ...base, upload: upload('pending'), archived: false })).toEqual({
      kind: 'none',
    });
    expect(decideUploadArchive({ ...base, upload: upload('expired'), archived: false })).toEqual({
      kind: 'archive',
    });
    expect(decideUploadArchive({ ...base, upload: upload('expired'), archived: true })).toEqual({
      kind: 'keep',
      ms: KEEP - 1,
    });
    expect(
      decideUploadArchive({ ...base, now: FINISHED + KEEP, upload: upload('expired'), archived: true }),
    ).toEqual({ kind: 'delete' });
  });
});
