import type { GenerationJob, JobError, JobPhase } from '../k8s/types.ts';
import { isJobFailureCode, isRetryableFailure } from './failure.ts';

/** The job record of spec 2.2, as GET /v1/jobs/{id} answers it and webhooks carry it. */
export interface JobRecord {
  jobId: string;
  status: JobPhase;
  progress: number;
  output: string | null;
  outputs: Array<{ url: string; type: string; thumbnail?: string; posterImage?: string }> | null;
  /** `retryable`: whether submitting the same job again may succeed (src/jobs/failure.ts). */
  error: { code: string; message: string; retryable: boolean } | null;
  createdAt: string;
  completedAt: string | null;
  /** Not in the spec's table; every client wants to know what a job was. */
  model: string;
  costMicroCents: number;
  /** A failed or cancelled job's: the credit given back (its whole cost). Not in the spec's table. */
  refundedMicroCents?: number;
  /**
   * Additions the api makes for a job still to finish (clients may ignore them): how many
   * jobs wait ahead of a pending one for its variant's slots, and when it should complete.
   */
  queuePosition?: number;
  estimatedCompletionTime?: string;
}

/**
 * The shape of {@link jobRecord}'s JSON, as the archive stores it beside each finished job
 * (the list pages serve the stored text as it is). Change it whenever jobRecord would write
 * a finished job differently (a field, or whether a failure code is retryable): rows of
 * another version are then built from their resource again, never served stale.
 * record.test.ts holds the text of this version's records.
 */
export const RECORD_VERSION = 2;

/** The phase of a job; a job the controller has not looked at yet is pending. */
export function phaseOf(job: GenerationJob): JobPhase {
  return job.status?.phase ?? 'pending';
}

/** Progress as the spec fixes it: 0 pending, 50 processing, 100 completed, 0 failed or cancelled. */
export function progressOf(phase: JobPhase): number {
  return phase === 'processing' ? 50 : phase === 'completed' ? 100 : 0;
}

export function jobRecord(job: GenerationJob): JobRecord {
  const phase = phaseOf(job);
  const s = job.status ?? {};
  const completed = phase === 'completed';
  const outputs = completed ? (s.outputs ?? []).map((o) => ({ ...o })) : null;
  const refunded = refundOf(job);
  return {
    jobId: job.metadata.name ?? '',
    status: phase,
    progress: progressOf(phase),
    output: completed ? (outputs?.[0]?.url ?? null) : null,
    outputs,
    error: phase === 'failed' && s.error ? publicError(s.error) : null,
    createdAt: job.metadata.creationTimestamp ?? new Date(0).toISOString(),
    completedAt:
      phase === 'completed' || phase === 'failed' || phase === 'cancelled' ? (s.completedAt ?? null) : null,
    model: job.spec.model,
    costMicroCents: job.spec.costMicroCents,
    ...(refunded === undefined ? {} : { refundedMicroCents: refunded }),
  };
}

/** The credit a failed or cancelled job gave back (its whole cost unless its status says), else undefined. */
export function refundOf(job: GenerationJob): number | undefined {
  const phase = phaseOf(job);
  return phase === 'failed' || phase === 'cancelled'
    ? (job.status?.refundedMicroCents ?? job.spec.costMicroCents)
    : undefined;
}

/** A failed job's error as clients see it: with the retry hint of its code. */
function publicError(e: JobError): { code: string; message: string; retryable: boolean } {
  // A code outside the set (written by an older controller) gives no promise a retry helps.
  return {
    code: e.code,
    message: e.message,
    retryable: isJobFailureCode(e.code) && isRetryableFailure(e.code),
  };
}
