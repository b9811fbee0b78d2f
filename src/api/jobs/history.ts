import {
  type ArchivedJobRecord,
  type ArchivedRecord,
  type ArchiveStore,
  ArchiveUnavailableError,
} from '../../archive/store.ts';
import { AppError } from '../../errors.ts';
import type { GenerationJob } from '../../k8s/types.ts';
import { decodeCursor, type ListQuery } from './list.ts';

/**
 * The api's reads of the job history. A job is looked for in the archive only after the
 * cache and the apiserver missed it: the archiver writes a job's record before deleting
 * its resource, so a job that is in neither live place is in the archive, or never was.
 * An archive that cannot answer is a retryable 503, never a 404 (the job may well exist).
 */
export class JobHistory {
  private readonly archive: ArchiveStore | undefined;

  constructor(archive: ArchiveStore | undefined) {
    this.archive = archive;
  }

  /** The archived job of this name, if there is an archive and it holds one. */
  async get(jobId: string): Promise<GenerationJob | undefined> {
    if (!this.archive) return undefined;
    return unavailableAs503(() => this.archive!.getJob(jobId));
  }

  /** The archived job's record as JSON text, its account and creation time, if the archive holds it. */
  async record(jobId: string): Promise<ArchivedJobRecord | undefined> {
    if (!this.archive) return undefined;
    return unavailableAs503(() => this.archive!.getRecord(jobId));
  }

  /** Whether a job of this name was archived: an Idempotency-Key's job may be. */
  exists(jobId: string): Promise<GenerationJob | undefined> {
    return this.get(jobId);
  }

  /**
   * The account's archived jobs created at or after `since` that may fill the page after the
   * cursor (a page and one more), as records.
   */
  async page(account: string, since: string, q: ListQuery): Promise<ArchivedRecord[]> {
    if (!this.archive) return [];
    const before = q.cursor ? decodeCursor(q.cursor) : undefined;
    return unavailableAs503(() =>
      this.archive!.listRecords({
        account,
        since,
        status: q.status,
        model: q.model,
        before,
        limit: q.limit + 1,
      }),
    );
  }
}

async function unavailableAs503<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ArchiveUnavailableError)) throw err;
    throw new AppError('UNAVAILABLE', 'the job history is unavailable right now; please retry', {
      cause: err,
      retryAfterSeconds: 5,
    });
  }
}
