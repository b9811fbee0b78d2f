import type { SqlClient } from './sql-client.ts';

/**
 * The schema, one step per version, never edited once released: a change is a new step.
 * Names of times as text in `created_at` keep the exact creationTimestamp of the resource
 * (RFC 3339, one format), so text order is time order and the list cursor compares the
 * same way in the api's memory and here (collation "C": byte order, like JavaScript's).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE genjobs_jobs (
     id text COLLATE "C" PRIMARY KEY,
     account text NOT NULL,
     model text NOT NULL,
     status text NOT NULL,
     created_at text COLLATE "C" NOT NULL,
     finished_at timestamptz NOT NULL,
     archived_at timestamptz NOT NULL DEFAULT now(),
     resource json NOT NULL
   );
   CREATE INDEX genjobs_jobs_account_created ON genjobs_jobs (account, created_at DESC, id DESC);
   CREATE INDEX genjobs_jobs_account_status ON genjobs_jobs (account, status, created_at DESC, id DESC);
   CREATE INDEX genjobs_jobs_account_model ON genjobs_jobs (account, model, created_at DESC, id DESC);
   CREATE INDEX genjobs_jobs_finished ON genjobs_jobs (finished_at);
   CREATE TABLE genjobs_uploads (
     id text COLLATE "C" PRIMARY KEY,
     account text NOT NULL,
     expires_at timestamptz NOT NULL,
     archived_at timestamptz NOT NULL DEFAULT now(),
     resource json NOT NULL
   );
   CREATE INDEX genjobs_uploads_expires ON genjobs_uploads (expires_at);`,
  // The job's record (GET /v1/jobs/{id}) as JSON text, and which shape of it (RECORD_VERSION):
  // a list page sends the stored text, not a record built from the parsed resource. Rows
  // from before have neither and are built from their resource.
  `ALTER TABLE genjobs_jobs ADD COLUMN record text, ADD COLUMN record_version integer;`,
  // An account's uploads, for erasing it (`genjobs accounts delete`).
  `CREATE INDEX genjobs_uploads_account ON genjobs_uploads (account);`,
  // The install the rows belong to (claim.ts): one row, the first install to use the database.
  `CREATE TABLE genjobs_install (
     id integer PRIMARY KEY CHECK (id = 1),
     marks text[] NOT NULL,
     namespace text NOT NULL,
     api text NOT NULL,
     claimed_at timestamptz NOT NULL DEFAULT now()
   );`,
  // The latest completed runs of a model (what the api's completion estimates learn from).
  `CREATE INDEX genjobs_jobs_completed_runs ON genjobs_jobs (model, created_at DESC) WHERE status = 'completed';`,
];

/** Any fixed number: every genjobs process that migrates takes this advisory lock first. */
const MIGRATION_LOCK = 7_406_114_001;

/**
 * Brings the schema to the newest version. Under a session advisory lock, so replicas
 * starting together never run a step twice: the second waits, then finds nothing to do.
 * Each step and its version row commit together. Returns the versions applied.
 */
export async function migrate(sql: SqlClient, steps: readonly string[] = MIGRATIONS): Promise<number[]> {
  return sql.session(async ({ query, exec }) => {
    await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await query(`CREATE TABLE IF NOT EXISTS genjobs_schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const rows = await query<{ v: number | null }>(
        'SELECT max(version) AS v FROM genjobs_schema_migrations',
      );
      const current = rows[0]?.v ?? 0;
      if (current > steps.length)
        throw new Error(
          `the archive's schema is version ${current}, newer than this genjobs knows (${steps.length})`,
        );
      const applied: number[] = [];
      for (let version = current + 1; version <= steps.length; version++) {
        await query('BEGIN');
        try {
          await exec(steps[version - 1]!);
          await query('INSERT INTO genjobs_schema_migrations (version) VALUES ($1)', [version]);
          await query('COMMIT');
        } catch (err) {
          await query('ROLLBACK');
          throw err;
        }
        applied.push(version);
      }
      return applied;
    } finally {
      await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}
