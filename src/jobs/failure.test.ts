import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../k8s/types.ts';
import { WORKER_ERROR_CODES } from '../worker/result.ts';
import { isJobFailureCode, isRetryableFailure, JOB_FAILURE_CODES } from './failure.ts';
import { jobRecord } from './record.ts';

const failedJob = (code: string): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name: 'j1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
  status: { phase: 'failed' as const, error: { code, message: 'boom' }, completedAt: '2026-01-01T00:01:00Z' },
});

describe('failed-job codes', () => {
  it('holds every code a worker reports, but INTERRUPTED (a lost Pod, retried)', () => {
    const reported = WORKER_ERROR_CODES.filter((c) => c !== 'INTERRUPTED');
    expect(reported.filter((c) => !isJobFailureCode(c))).toEqual([]);
    expect(isJobFailureCode('INTERRUPTED')).toBe(false);
  });

  it('holds every code the controller writes (a new one there must be published here)', () => {
    const source = readFileSync(new URL('../controller/job/decide.ts', import.meta.url), 'utf8');
    const literals = [...source.matchAll(/'([A-Z][A-Z_]+)'/g)].map((m) => m[1] ?? '');
    expect(literals.length).toBeGreaterThan(5);
    expect(literals.filter((c) => c !== 'INTERRUPTED' && !isJobFailureCode(c))).toEqual([]);
  });

  it.each([
    ['GENERATION_FAILED', false],
    ['OUT_OF_MEMORY', false],
    ['MODEL_UNAVAILABLE', false],
    ['INFRASTRUCTURE_LOST', true],
    ['QUEUE_TIMEOUT', true],
    ['UPSTREAM_ERROR', true],
  ] as const)('%s is retryable: %s', (code, retryable) => {
    expect(isRetryableFailure(code)).toBe(retryable);
  });

  it('has 13 codes, GENERATION_FAILED (the spec) among them', () => {
    expect(JOB_FAILURE_CODES).toHaveLength(13);
    expect(JOB_FAILURE_CODES).toContain('GENERATION_FAILED');
  });
});

describe('a failed job record', () => {
  it('carries the retry hint of its code', () => {
    expect(jobRecord(failedJob('GENERATION_FAILED')).error).toEqual({
      code: 'GENERATION_FAILED',
      message: 'boom',
      retryable: false,
    });
    expect(jobRecord(failedJob('UNSCHEDULABLE')).error?.retryable).toBe(true);
  });

  it('promises nothing for a code outside the set', () => {
    expect(jobRecord(failedJob('SOMETHING_OLD')).error).toMatchObject({
      code: 'SOMETHING_OLD',
      retryable: false,
    });
  });
});
