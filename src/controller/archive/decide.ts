import { phaseOf } from '../../jobs/record.ts';
import { type GenerationJob, isTerminal, type Upload } from '../../k8s/types.ts';
import { wantsWebhook } from '../webhook/decide.ts';

/** What the archiver does next for one job or upload. */
export type ArchiveStep =
  /** Not finished: nothing to archive. */
  | { kind: 'none' }
  /** Finished, but the cluster still has work for it; the event that ends the work brings it back. */
  | { kind: 'wait'; for: 'pod' | 'settlement' | 'webhook' }
  /** Write (or write again: the resource changed since) its final record. */
  | { kind: 'archive' }
  /** Archived: it stays a resource a little longer. */
  | { kind: 'keep'; ms: number }
  /** Archived and kept long enough: delete the resource. */
  | { kind: 'delete' };

export interface JobArchiveInput {
  job: GenerationJob;
  /** No Pod of the job runs: each one is gone or stopped (a stopped one is kept a while, then goes with the job). */
  podsStopped: boolean;
  /** The ledger has settled the job ({@link settled}). */
  settled: boolean;
  /** This very version of the resource is in the archive. */
  archived: boolean;
  now: number;
  keepFinishedMs: number;
}

/** Whether a job's webhook is done: none wanted, delivered, or given up. */
export function webhookDone(job: GenerationJob): boolean {
  if (!wantsWebhook(job)) return true;
  const state = job.status?.webhook?.state;
  return state === 'delivered' || state === 'failed';
}

/**
 * A finished job is archived once nothing is left to do for it in the cluster (no Pod
 * running, money settled, webhook over), always before its resource is deleted, and deleted
 * `keepFinishedMs` after it finished. The archived version is compared with the resource's
 * so a change after the upsert is archived too before the delete.
 */
export function decideJobArchive(i: JobArchiveInput): ArchiveStep {
  if (!isTerminal(phaseOf(i.job))) return { kind: 'none' };
  if (!i.podsStopped) return { kind: 'wait', for: 'pod' };
  if (!i.settled) return { kind: 'wait', for: 'settlement' };
  if (!webhookDone(i.job)) return { kind: 'wait', for: 'webhook' };
  if (!i.archived) return { kind: 'archive' };
  const finishedAt = Date.parse(i.job.status?.completedAt ?? i.job.metadata.creationTimestamp ?? '') || i.now;
  const left = finishedAt + i.keepFinishedMs - i.now;
  return left > 0 ? { kind: 'keep', ms: left } : { kind: 'delete' };
}

/** An upload's record is archived once it expired (its file is gone by then), then deleted like a job. */
export function decideUploadArchive(i: {
  upload: Upload;
  archived: boolean;
  now: number;
  keepFinishedMs: number;
}): ArchiveStep {
  if (i.upload.status?.phase !== 'expired') return { kind: 'none' };
  if (!i.archived) return { kind: 'archive' };
  const left = Date.parse(i.upload.spec.expiresAt) + i.keepFinishedMs - i.now;
  return left > 0 ? { kind: 'keep', ms: left } : { kind: 'delete' };
}
