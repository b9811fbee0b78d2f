import { jobRecord, RECORD_VERSION } from '../jobs/record.ts';
import type { GenerationJob, Upload } from '../k8s/types.ts';
import { Coalescer } from './coalesce.ts';
import type { SqlClient } from './sql-client.ts';
import type {
  ArchivedJobRecord,
  ArchivedRecord,
  ArchiveListQuery,
  ArchiveRow,
  ArchiveStore,
  CompletedRun,
  CreatedRange,
} from './store.ts';

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters. */
const INSERT_CHUNK = 500;

/**
 * The archive on PostgreSQL (a server through `pg`, or PGlite in the dev process): the
 * same SQL on both. A job's row keeps the resource's JSON as text (type json, not jsonb,
 * which would reorder keys), so the record the api builds from it is byte for byte the one
 * it built while the job was live.
 */
export class SqlArchive implements ArchiveStore {
  private readonly sql: SqlClient;

  /**
   * Records by id (GET /v1/jobs/{id}), one query for the look-ups that arrive together (see
   * Coalescer). Two queries in flight: measured at 16 concurrent GETs, CPU per GET (api,
   * PostgreSQL and the client together) was 0.25 ms with one, 0.29 with two, 0.37 with
   * four, 0.49 without coalescing; two rather than one so a slow look-up (a page read from
   * disk) does not hold every other GET behind it.
   */
  private readonly records = new Coalescer<ArchivedJobRecord>(async (ids) => {
    const rows = await this.sql.query<StoredRecord & { id: string; account: string; created_at: string }>(
      `SELECT id, account, created_at, ${RECORD_COLUMNS} FROM genjobs_jobs WHERE id = ANY($1::text[])`,
      [ids],
      'genjobs-get-records',
    );
    return new Map(
      rows.map((r) => [r.id, { account: r.account, createdAt: r.created_at, record: recordText(r) }]),
    );
  }, 2);

  /** Resources by id (cancel, Idempotency-Key look-ups, the admin CLI), coalesced the same way. */
  private readonly jobs = new Coalescer<string>(async (ids) => {
    const rows = await this.sql.query<{ id: string; resource: string }>(
      'SELECT id, resource::text AS resource FROM genjobs_jobs WHERE id = ANY($1::text[])',
      [ids],
      'genjobs-get-jobs',
    );
    return new Map(rows.map((r) => [r.id, r.resource]));
  }, 2);

  constructor(sql: SqlClient) {
    this.sql = sql;
  }

  async upsertJobs(all: readonly GenerationJob[]): Promise<void> {
    // One row may be written once per statement: the last version of a name wins.
    const jobs = [...new Map(all.map((j) => [j.metadata.name, j])).values()];
    for (let i = 0; i < jobs.length; i += INSERT_CHUNK) {
      const chunk = jobs.slice(i, i + INSERT_CHUNK);
      const params: unknown[] = [];
      const values = chunk.map((job) => {
        const row = [
          job.metadata.name,
          job.spec.account,
          job.spec.model,
          job.status?.phase ?? 'pending',
          job.metadata.creationTimestamp,
          job.status?.completedAt ?? job.metadata.creationTimestamp,
          JSON.stringify(stripped(job)),
          JSON.stringify(jobRecord(job)),
          RECORD_VERSION,
        ];
        const first = params.push(...row) - row.length;
        return `(${row.map((_, k) => `$${first + k + 1}`).join(',')})`;
      });
      await this.sql.query(
        `INSERT INTO genjobs_jobs (id, account, model, status, created_at, finished_at, resource, record, record_version)
         VALUES ${values.join(',')}
         ON CONFLICT (id) DO UPDATE SET account = EXCLUDED.account, model = EXCLUDED.model,
           status = EXCLUDED.status, created_at = EXCLUDED.created_at,
           finished_at = EXCLUDED.finished_at, resource = EXCLUDED.resource, record = EXCLUDED.record,
           record_version = EXCLUDED.record_version, archived_at = now()`,
        params,
      );
    }
  }

  async upsertUploads(all: readonly Upload[]): Promise<void> {
    const uploads = [...new Map(all.map((u) => [u.metadata.name, u])).values()];
    for (let i = 0; i < uploads.length; i += INSERT_CHUNK) {
      const params: unknown[] = [];
      const values = uploads.slice(i, i + INSERT_CHUNK).map((u) => {
        params.push(u.metadata.name, u.spec.account, u.spec.expiresAt, JSON.stringify(stripped(u)));
        const n = params.length;
        return `($${n - 3},$${n - 2},$${n - 1},$${n})`;
      });
      await this.sql.query(
        `INSERT INTO genjobs_uploads (id, account, expires_at, resource) VALUES ${values.join(',')}
         ON CONFLICT (id) DO UPDATE SET account = EXCLUDED.account, expires_at = EXCLUDED.expires_at,
           resource = EXCLUDED.resource, archived_at = now()`,
        params,
      );
    }
  }

  async getJob(id: string): Promise<GenerationJob | undefined> {
    const resource = await this.jobs.get(id);
    return resource === undefined ? undefined : (JSON.parse(resource) as GenerationJob);
  }

  getRecord(id: string): Promise<ArchivedJobRecord | undefined> {
    return this.records.get(id);
  }

  async getUpload(id: string): Promise<Upload | undefined> {
    const rows = await this.sql.query<{ resource: string }>(
      'SELECT resource::text AS resource FROM genjobs_uploads WHERE id = $1',
      [id],
    );
    return rows[0] ? (JSON.parse(rows[0].resource) as Upload) : undefined;
  }

  async listJobs(q: ArchiveListQuery): Promise<GenerationJob[]> {
    const rows = await this.page<{ resource: string }>('resource::text AS resource', q, 'jobs');
    return rows.map((r) => JSON.parse(r.resource) as GenerationJob);
  }

  async listRecords(q: ArchiveListQuery): Promise<ArchivedRecord[]> {
    const rows = await this.page<StoredRecord & { id: string; created_at: string }>(
      `id, created_at, ${RECORD_COLUMNS}`,
      q,
      'records',
    );
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at, record: recordText(r) }));
  }

  /** One page of an account's jobs, newest first, with these columns. */
  private page<R extends object>(columns: string, q: ArchiveListQuery, kind: string): Promise<R[]> {
    const params: unknown[] = [q.account, q.since ?? ''];
    const where = ['account = $1', 'created_at >= $2'];
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    if (q.model) where.push(`model = $${params.push(q.model)}`);
    if (q.before) {
      params.push(q.before[0], q.before[1]);
      where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
    }
    return this.sql.query<R>(
      `SELECT ${columns} FROM genjobs_jobs WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id DESC LIMIT $${params.push(q.limit)}`,
      params,
      // One prepared statement per combination of filters (the text differs only by those).
      `genjobs-list-${kind}-${q.status ? 's' : ''}${q.model ? 'm' : ''}${q.before ? 'b' : ''}`,
    );
  }

  async recentRuns(models: readonly string[], perModel: number): Promise<CompletedRun[]> {
    // One query for the whole catalog; of each row only what an estimate reads, not its resource.
    // The latest by creation, not by finish (nearly the same jobs): ordered by finished_at, the
    // planner walks retention's finished_at index backwards instead of this partial index, which
    // reads the whole table for a model that has no completed run (measured, 300,000 rows:
    // 365 ms against 4 ms for 21 models).
    const rows = await this.sql.query<{
      id: string;
      model: string;
      input: string | null;
      started_at: string | null;
      completed_at: string | null;
    }>(
      `SELECT r.id, m.model, r.input, r.started_at, r.completed_at
       FROM unnest($1::text[]) AS m(model)
       CROSS JOIN LATERAL (
         SELECT id, (resource->'spec'->'input')::text AS input,
           resource->'status'->>'startedAt' AS started_at, resource->'status'->>'completedAt' AS completed_at
         FROM genjobs_jobs WHERE model = m.model AND status = 'completed'
         ORDER BY created_at DESC LIMIT $2
       ) r`,
      [models, perModel],
    );
    return rows.flatMap((r) =>
      r.started_at && r.completed_at
        ? [
            {
              id: r.id,
              model: r.model,
              input: (r.input ? JSON.parse(r.input) : {}) as Record<string, unknown>,
              startedAt: r.started_at,
              completedAt: r.completed_at,
            },
          ]
        : [],
    );
  }

  async expired(before: Date, limit: number): Promise<ArchiveRow[]> {
    const rows = await this.sql.query<{ kind: 'job' | 'upload'; id: string }>(
      `(SELECT 'job' AS kind, id, finished_at AS at FROM genjobs_jobs WHERE finished_at < $1
         ORDER BY finished_at LIMIT $2)
       UNION ALL
       (SELECT 'upload' AS kind, id, expires_at AS at FROM genjobs_uploads WHERE expires_at < $1
         ORDER BY expires_at LIMIT $2)
       ORDER BY at LIMIT $2`,
      [before.toISOString(), limit],
    );
    return rows.map((r) => ({ kind: r.kind, id: r.id }));
  }

  async accountRows(account: string, range: CreatedRange, limit: number): Promise<ArchiveRow[]> {
    // An upload row has no created_at column: its resource's creationTimestamp (the same
    // RFC 3339 text, compared as text as created_at is). '' as `before`: no upper bound.
    const uploadCreated = `(resource->'metadata'->>'creationTimestamp') COLLATE "C"`;
    const rows = await this.sql.query<{ kind: 'job' | 'upload'; id: string; object_key: string | null }>(
      `(SELECT 'job' AS kind, id, NULL AS object_key FROM genjobs_jobs
         WHERE account = $1 AND created_at >= $2 AND ($3 = '' OR created_at < $3) LIMIT $4)
       UNION ALL
       (SELECT 'upload' AS kind, id, resource->'spec'->>'objectKey' AS object_key FROM genjobs_uploads
         WHERE account = $1 AND ${uploadCreated} >= $2 AND ($3 = '' OR ${uploadCreated} < $3) LIMIT $4)
       LIMIT $4`,
      [account, range.since ?? '', range.before ?? '', limit],
    );
    return rows.map((r) => ({
      kind: r.kind,
      id: r.id,
      ...(r.object_key ? { objectKey: r.object_key } : {}),
    }));
  }

  async deleteRows(rows: readonly ArchiveRow[]): Promise<number> {
    const ids = (kind: ArchiveRow['kind']) => rows.filter((r) => r.kind === kind).map((r) => r.id);
    const [jobs, uploads] = await Promise.all([
      this.sql.query<{ n: number }>(
        'WITH d AS (DELETE FROM genjobs_jobs WHERE id = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM d',
        [ids('job')],
      ),
      this.sql.query<{ n: number }>(
        'WITH d AS (DELETE FROM genjobs_uploads WHERE id = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM d',
        [ids('upload')],
      ),
    ]);
    return (jobs[0]?.n ?? 0) + (uploads[0]?.n ?? 0);
  }

  async count(): Promise<{ jobs: number; uploads: number }> {
    const rows = await this.sql.query<{ jobs: number; uploads: number }>(
      `SELECT (SELECT count(*)::int FROM genjobs_jobs) AS jobs, (SELECT count(*)::int FROM genjobs_uploads) AS uploads`,
    );
    return rows[0] ?? { jobs: 0, uploads: 0 };
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}

/**
 * A row's stored record when it has this version's shape, else its resource to build the
 * record from (a row written by an older controller): never both, so a read moves only the
 * smaller text.
 */
const RECORD_COLUMNS = `CASE WHEN record_version = ${RECORD_VERSION} THEN record END AS record,
  CASE WHEN record_version IS DISTINCT FROM ${RECORD_VERSION} THEN resource::text END AS resource`;

interface StoredRecord {
  record: string | null;
  resource: string | null;
}

/** The record text of a row read with {@link RECORD_COLUMNS}. */
function recordText(r: StoredRecord): string {
  return r.record ?? JSON.stringify(jobRecord(JSON.parse(r.resource ?? '{}') as GenerationJob));
}

/** The resource without what only the apiserver needs (managedFields grow every object a lot). */
function stripped<T extends { metadata: object }>(obj: T): T {
  const { managedFields: _, ...metadata } = obj.metadata as { managedFields?: unknown };
  return { ...obj, metadata } as T;
}
