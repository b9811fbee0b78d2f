import { expect } from 'vitest';
import { retryOnConflict } from '../../src/k8s/cas.ts';
import type { GenerationJob } from '../../src/k8s/types.ts';
import type { TestService } from '../support/service.ts';

export const IMAGE = 'genjobs/reference-image/text-to-image';

/** Submits an image job with a webhookUrl through the api; returns its id. */
export async function submit(svc: TestService, key: string, webhookUrl: string): Promise<string> {
  const res = await svc.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: IMAGE, input: { prompt: 'a lighthouse' }, webhookUrl },
  });
  expect(res.status).toBe(200);
  return (await res.json()).jobId;
}

/**
 * Moves a job to a terminal phase by writing its status as the controller would on the
 * worker's report, so webhook tests need no node agent. A conflict with the job reconciler
 * (which may be starting the job meanwhile) just means re-read and write again.
 */
export function finish(
  svc: TestService,
  jobId: string,
  phase: 'completed' | 'failed',
): Promise<GenerationJob> {
  return retryOnConflict(async () => {
    const job = await svc.r.jobs.get(jobId);
    if (!job) throw new Error(`job ${jobId} not found`);
    const completedAt = new Date().toISOString();
    return svc.r.jobs.updateStatus({
      ...job,
      status: {
        ...job.status,
        phase,
        completedAt,
        ...(phase === 'completed'
          ? {
              progress: 100,
              outputs: [
                { url: `https://cdn.example.com/jobs/${jobId}/output-0.png`, type: 'image' as const },
              ],
            }
          : {
              progress: 0,
              error: { code: 'GENERATION_FAILED', message: 'the model returned no image' },
              refundedMicroCents: job.spec.costMicroCents,
            }),
      },
    });
  });
}

/** The webhook delivery record of a job, as the controller keeps it. */
export async function webhookOf(svc: TestService, jobId: string) {
  return (await svc.r.jobs.get(jobId))?.status?.webhook;
}
