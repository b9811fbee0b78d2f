/**
 * An Idempotency-Key answers with its job for this long after the job was made; after it
 * the same key submits a new job. The job history must be kept at least this long
 * (GENJOBS_RETENTION): a job deleted sooner could not answer its key.
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
