import type { GenerationJob, Upload } from '../k8s/types.ts';
import { type ArchiveOwner, claimArchive, refuseIfClaimedElsewhere } from './claim.ts';
import { migrate } from './migrations.ts';
import { SqlArchive } from './sql-archive.ts';
import type { SqlClient } from './sql-client.ts';
import {
  type ArchiveListQuery,
  type ArchiveRow,
  type ArchiveStore,
  ArchiveUnavailableError,
  type CreatedRange,
} from './store.ts';

const RETRY_MIGRATION_MS = 1_000;
/**
 * How long a claim found good is trusted: after a hand-over to another install (its claim
 * deleted, the other's taken) a process still running here is refused within this. Deletes
 * (retention, erasure) ask every time.
 */
const CLAIM_RECHECK_MS = 60_000;

export interface ArchiveOptions {
  /** Hears the schema versions this process applied (none when it was current). */
  onMigrated?: (versions: number[]) => void;
  /**
   * The install whose rows these are: the database is claimed for it before the first use,
   * and every use fails while another install holds it (see claim.ts). Without one (tests,
   * the bench) nothing is claimed or checked.
   */
  owner?: ArchiveOwner;
  /** Hears that this process claimed the database, or moved the claim to a rotated secret's mark. */
  onClaimed?: (outcome: 'claimed' | 'renewed') => void;
}

/**
 * The archive as the processes use it: the schema is brought up to date before the first
 * use (not at start: a process must start and run jobs while PostgreSQL is down), a failed
 * migration is tried again on the next use, and every failure is an
 * {@link ArchiveUnavailableError}, which the api answers as a retryable 503.
 */
export class Archive implements ArchiveStore {
  private readonly sql: SqlClient;
  private readonly store: SqlArchive;
  private migrated: Promise<void> | undefined;
  private readonly o: ArchiveOptions;

  constructor(sql: SqlClient, o: ArchiveOptions = {}) {
    this.sql = sql;
    this.store = new SqlArchive(sql);
    this.o = o;
  }

  /**
   * Runs pending migrations and claims the database for this install now; rejects with
   * ArchiveUnavailableError when it cannot (another install's database included). A
   * failure is answered again for a second without another attempt, so thousands of
   * finished jobs retrying against a down server do not each open a connection.
   */
  ready(): Promise<void> {
    this.migrated ??= (async () => {
      const { owner } = this.o;
      // Another install's database is left as it is: not even its schema is moved on.
      if (owner) await refuseIfClaimedElsewhere(this.sql, owner);
      const applied = await migrate(this.sql);
      if (applied.length > 0) this.o.onMigrated?.(applied);
      if (!owner) return;
      const outcome = await claimArchive(this.sql, owner);
      if (outcome !== 'ours') this.o.onClaimed?.(outcome);
      setTimeout(() => {
        this.migrated = undefined;
      }, CLAIM_RECHECK_MS).unref();
    })().catch((err: unknown) => {
      setTimeout(() => {
        this.migrated = undefined;
      }, RETRY_MIGRATION_MS).unref();
      throw new ArchiveUnavailableError(err);
    });
    return this.migrated;
  }

  private async call<T>(fn: (s: SqlArchive) => Promise<T>, o: { claimNow?: boolean } = {}): Promise<T> {
    await this.ready();
    try {
      if (o.claimNow && this.o.owner) await claimArchive(this.sql, this.o.owner);
      return await fn(this.store);
    } catch (err) {
      throw new ArchiveUnavailableError(err);
    }
  }

  upsertJobs(jobs: readonly GenerationJob[]) {
    return this.call((s) => s.upsertJobs(jobs));
  }
  upsertUploads(uploads: readonly Upload[]) {
    return this.call((s) => s.upsertUploads(uploads));
  }
  getJob(id: string) {
    return this.call((s) => s.getJob(id));
  }
  getRecord(id: string) {
    return this.call((s) => s.getRecord(id));
  }
  getUpload(id: string) {
    return this.call((s) => s.getUpload(id));
  }
  listJobs(q: ArchiveListQuery) {
    return this.call((s) => s.listJobs(q));
  }
  listRecords(q: ArchiveListQuery) {
    return this.call((s) => s.listRecords(q));
  }
  recentRuns(models: readonly string[], perModel: number) {
    return this.call((s) => s.recentRuns(models, perModel));
  }
  expired(before: Date, limit: number) {
    return this.call((s) => s.expired(before, limit));
  }
  accountRows(account: string, range: CreatedRange, limit: number) {
    return this.call((s) => s.accountRows(account, range, limit));
  }
  /** Asks for the claim first, every time: rows are deleted only from this install's database. */
  deleteRows(rows: readonly ArchiveRow[]) {
    return this.call((s) => s.deleteRows(rows), { claimNow: true });
  }
  count() {
    return this.call((s) => s.count());
  }
  close() {
    return this.sql.close();
  }
}
