import { createHmac } from 'node:crypto';
import type { SqlClient } from './sql-client.ts';

/**
 * The install an archive's rows belong to. Rows are keyed by job id and account name
 * alone, so two installs writing one database would read each other's jobs as their own
 * accounts' (a `demo` here and a `demo` there are one account to a list page), and one
 * install's retention or `history erase` would delete the other's rows. The first install
 * to use the database claims it; another one is refused every use, with what to do.
 */
export interface ArchiveOwner {
  /**
   * This install's mark ({@link ownerMark} of its blob signing secret), then the marks of its
   * previous secrets: a rotation keeps the claim and moves it to the new mark.
   */
  marks: readonly string[];
  /** The install's namespace and its api's address, shown to another install that finds the database taken. */
  namespace: string;
  api: string;
}

/**
 * An install's mark: derived from the blob signing secret, which every replica of one
 * install shares and no two installs do (the chart makes one per release; dev mode one per
 * dev dir). Keyed, so the database never holds anything that tells the secret.
 */
export function ownerMark(signingSecret: string): string {
  return createHmac('sha256', signingSecret).update('genjobs archive owner').digest('hex').slice(0, 32);
}

/** The archive database is another install's. */
export class ArchiveClaimedError extends Error {
  constructor(held: HeldClaim) {
    super(
      `the archive database holds the job history of another genjobs install (namespace ${held.namespace}, ` +
        `api ${held.api || 'unknown'}, claimed ${held.claimed_at}); give each install its own database. If this ` +
        'install replaces that one for good, stop that one, then delete its claim (DELETE FROM genjobs_install): ' +
        'this one takes the history over at its next use',
    );
    this.name = 'ArchiveClaimedError';
  }
}

interface HeldClaim {
  marks: string[];
  namespace: string;
  api: string;
  claimed_at: string;
}

async function heldClaim(sql: SqlClient): Promise<HeldClaim | undefined> {
  const [held] = await sql.query<HeldClaim>(
    `SELECT marks, namespace, api, to_char(claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS claimed_at
     FROM genjobs_install WHERE id = 1`,
  );
  return held;
}

/**
 * Refuses, before anything is written (a migration included), a database another install
 * holds; one without the claim's table or row passes (see {@link claimArchive}).
 */
export async function refuseIfClaimedElsewhere(sql: SqlClient, owner: ArchiveOwner): Promise<void> {
  const [table] = await sql.query<{ t: string | null }>("SELECT to_regclass('genjobs_install')::text AS t");
  if (!table?.t) return;
  const held = await heldClaim(sql);
  if (held && !held.marks.some((m) => owner.marks.includes(m))) throw new ArchiveClaimedError(held);
}

/**
 * Claims the archive for `owner`, or finds it is already: 'claimed' the first time, 'ours'
 * after, 'renewed' when this install's current mark was not among the held ones yet (its
 * secret was rotated: the claim becomes this process's marks). An install holds the claim
 * while any of its marks is held, so replicas still on the previous secret keep working
 * through a rolling rotation. Throws {@link ArchiveClaimedError} when another install
 * holds it.
 */
export async function claimArchive(
  sql: SqlClient,
  owner: ArchiveOwner,
): Promise<'claimed' | 'ours' | 'renewed'> {
  const [mark] = owner.marks;
  if (!mark) throw new Error('an archive owner needs a mark');
  const marks = [...owner.marks];
  const inserted = await sql.query(
    `INSERT INTO genjobs_install (id, marks, namespace, api) VALUES (1, $1::text[], $2, $3)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [marks, owner.namespace, owner.api],
  );
  if (inserted.length > 0) return 'claimed';
  const held = await heldClaim(sql);
  // Deleted meanwhile (an operator handing the history over): the next use claims it.
  if (!held) return claimArchive(sql, owner);
  if (held.marks.includes(mark)) return 'ours';
  if (!held.marks.some((m) => marks.includes(m))) throw new ArchiveClaimedError(held);
  await sql.query('UPDATE genjobs_install SET marks = $1::text[], namespace = $2, api = $3 WHERE id = 1', [
    marks,
    owner.namespace,
    owner.api,
  ]);
  return 'renewed';
}
