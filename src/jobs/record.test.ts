import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../k8s/types.ts';
import { jobRecord, RECORD_VERSION } from './record.ts';

const finished = (status: NonNullable<GenerationJob['status']>): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name: 'j1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { account: 'acme', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 134000 },
  status,
});

describe('the record of a finished job, as the archive stores its text', () => {
  // The archive serves stored records of RECORD_VERSION as they are. When one of these
  // changes, records already archived are of the old shape: bump RECORD_VERSION (rows of
  // another version are built from their resource again) and write the new text here. The
  // same when a failure code changes whether it is retryable (src/jobs/failure.ts).
  it.each([
    [
      'completed',
      finished({
        phase: 'completed',
        completedAt: '2026-01-01T00:00:31Z',
        outputs: [{ url: 'https://files.example/j1/0.png', type: 'image' }],
      }),
      '{"jobId":"j1","status":"completed","progress":100,"output":"https://files.example/j1/0.png","outputs":[{"url":"https://files.example/j1/0.png","type":"image"}],"error":null,"createdAt":"2026-01-01T00:00:00Z","completedAt":"2026-01-01T00:00:31Z","model":"p/m/text-to-image","costMicroCents":134000}',
    ],
    [
      'failed',
      finished({
        phase: 'failed',
        completedAt: '2026-01-01T00:00:31Z',
        error: { code: 'GENERATION_FAILED', message: 'the worker exited with code 1' },
      }),
      '{"jobId":"j1","status":"failed","progress":0,"output":null,"outputs":null,"error":{"code":"GENERATION_FAILED","message":"the worker exited with code 1","retryable":false},"createdAt":"2026-01-01T00:00:00Z","completedAt":"2026-01-01T00:00:31Z","model":"p/m/text-to-image","costMicroCents":134000,"refundedMicroCents":134000}',
    ],
    [
      'cancelled',
      finished({ phase: 'cancelled', completedAt: '2026-01-01T00:00:05Z', refundedMicroCents: 134000 }),
      '{"jobId":"j1","status":"cancelled","progress":0,"output":null,"outputs":null,"error":null,"createdAt":"2026-01-01T00:00:00Z","completedAt":"2026-01-01T00:00:05Z","model":"p/m/text-to-image","costMicroCents":134000,"refundedMicroCents":134000}',
    ],
  ])('%s: version %#', (_name, job, text) => {
    expect(RECORD_VERSION).toBe(2);
    expect(JSON.stringify(jobRecord(job))).toBe(text);
  });
});
