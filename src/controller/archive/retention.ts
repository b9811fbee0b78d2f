import type { ArchiveStore } from '../../archive/store.ts';
import { inBatches } from '../../batches.ts';
import { jobPrefix } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Metrics } from '../../metrics.ts';

export interface RetentionDeps {
  archive: ArchiveStore;
  blob: BlobStore;
  metrics: Metrics;
  now: () => number;
  retentionMs: number;
  /** Rows per pass. */
  batch: number;
  /** Pause between passes when nothing more is due. */
  idleMs?: number;
}

/** Files deleted at once: a store (S3) throttles a burst of thousands. */
const FILE_CONCURRENCY = 16;

/**
 * Deletes what outlived `jobs.retention`: archived jobs with their output files, and
 * expired uploads' records (their files went at expiry). One bounded batch per pass, the
 * files before the rows, so a pass cut short leaves rows that the next pass finishes
 * (deleting a file twice is harmless) and never a row whose files are kept forever.
 */
export class Retention {
  private readonly d: RetentionDeps;

  constructor(deps: RetentionDeps) {
    this.d = deps;
  }

  /** One pass; as a work-queue result: soon again while a backlog lasts, else after idleMs. */
  async pass(): Promise<HandlerResult> {
    const d = this.d;
    const rows = await d.archive.expired(new Date(d.now() - d.retentionMs), d.batch);
    const jobs = rows.filter((r) => r.kind === 'job');
    await inBatches(jobs, FILE_CONCURRENCY, (r) => d.blob.deletePrefix(jobPrefix(r.id)));
    if (rows.length > 0) {
      await d.archive.deleteRows(rows);
      d.metrics.retentionDeleted.inc({ kind: 'job' }, jobs.length);
      if (rows.length > jobs.length)
        d.metrics.retentionDeleted.inc({ kind: 'upload' }, rows.length - jobs.length);
    }
    return { requeueAfterMs: rows.length === d.batch ? 100 : (d.idleMs ?? 5 * 60_000) };
  }
}
