import type { GenerationJob, Upload } from '../k8s/types.ts';

/** Where a page of archived jobs starts: the (createdAt, id) key of the last job already shown. */
export type ListKey = readonly [createdAt: string, id: string];

/** A query for one account's archived jobs, newest first by (createdAt, id). */
export interface ArchiveListQuery {
  account: string;
  /** Only jobs created at or after this creationTimestamp (the account's own, not a deleted namesake's). */
  since?: string;
  status?: string;
  model?: string;
  /** Only jobs strictly older than this key. */
  before?: ListKey;
  limit: number;
}

/** An archived job as a list page shows it: its key, and its record (GET /v1/jobs/{id}) as JSON text. */
export interface ArchivedRecord {
  id: string;
  createdAt: string;
  record: string;
}

/** An archived job as GET /v1/jobs/{id} serves it: its owner, and its record as JSON text. */
export interface ArchivedJobRecord {
  account: string;
  /** The job's creationTimestamp. */
  createdAt: string;
  record: string;
}

/** What a completed job's run tells completion estimates: how long it took, for which input. */
export interface CompletedRun {
  id: string;
  model: string;
  input: Record<string, unknown>;
  /** RFC 3339, as the job's status has them. */
  startedAt: string;
  completedAt: string;
}

/** An archived job or upload row, as retention and an account's erase delete it. */
export interface ArchiveRow {
  kind: 'job' | 'upload';
  id: string;
  /** An upload's file (given by {@link ArchiveStore.accountRows}). */
  objectKey?: string;
}

/** Which of an account's rows: those created at or after `since` and before `before` (RFC 3339 text). */
export interface CreatedRange {
  since?: string;
  before?: string;
}

/**
 * The job history: final records of finished jobs and expired uploads, written by the
 * controller's archiver before their resources are deleted, read by the api when a job is
 * no longer live. Every write is an idempotent upsert keyed by name, so a record written
 * twice (a controller killed between the upsert and the delete) is still one record.
 */
export interface ArchiveStore {
  /** Upserts final records of finished jobs; the stored JSON is the resource as it was. */
  upsertJobs(jobs: readonly GenerationJob[]): Promise<void>;
  upsertUploads(uploads: readonly Upload[]): Promise<void>;
  getJob(id: string): Promise<GenerationJob | undefined>;
  /** The job's record ({@link listRecords}' text) and account, without reading its resource when the stored record has this version's shape. */
  getRecord(id: string): Promise<ArchivedJobRecord | undefined>;
  getUpload(id: string): Promise<Upload | undefined>;
  listJobs(q: ArchiveListQuery): Promise<GenerationJob[]>;
  /** {@link listJobs} as records, the stored text when it has this version's shape. */
  listRecords(q: ArchiveListQuery): Promise<ArchivedRecord[]>;
  /** Each model's `perModel` latest submitted completed runs (in no set order). */
  recentRuns(models: readonly string[], perModel: number): Promise<CompletedRun[]>;
  /** Up to `limit` rows finished (jobs) or expired (uploads) before `before`, oldest first. */
  expired(before: Date, limit: number): Promise<ArchiveRow[]>;
  /**
   * Up to `limit` rows of an account's archived jobs and uploads created in `range` (from the
   * Account's creation: its own, not a deleted namesake's), for erasing them.
   */
  accountRows(account: string, range: CreatedRange, limit: number): Promise<ArchiveRow[]>;
  /** Deletes rows; returns how many went. */
  deleteRows(rows: readonly ArchiveRow[]): Promise<number>;
  /** Rows held, by kind (operators, the bench). */
  count(): Promise<{ jobs: number; uploads: number }>;
  close(): Promise<void>;
}

/** The archive could not be reached or answered with an error: the caller may retry later. */
export class ArchiveUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the job archive is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ArchiveUnavailableError';
  }
}
