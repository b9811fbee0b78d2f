import type { ArchivedRecord } from '../../archive/store.ts';
import { AppError } from '../../errors.ts';
import { type JobRecord, jobRecord, phaseOf } from '../../jobs/record.ts';
import type { GenerationJob } from '../../k8s/types.ts';

export interface ListQuery {
  status?: string;
  model?: string;
  limit: number;
  cursor?: string;
}

/** Where a page starts: the (creationTimestamp, name) of the last job shown. */
export type Key = readonly [createdAt: string, name: string];

const newestFirst = (a: Key, b: Key) =>
  a[0] !== b[0] ? (a[0] < b[0] ? 1 : -1) : a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0;
/** Whether job a comes strictly before job b in time (later in the list); no key made. */
const olderThan = (aCreated: string, aName: string, bCreated: string, bName: string) =>
  aCreated !== bCreated ? aCreated < bCreated : aName < bName;

/** A page of the job list: each job's record as JSON text (an archived one's as stored). */
export interface ListPage {
  jobs: string[];
  nextCursor: string | null;
}

/** Live jobs that may be on a page, newest first (see {@link newestLive}). */
export interface LiveEntries {
  newest: Array<{ key: Key; job: GenerationJob }>;
}

/**
 * Of an account's live jobs, the newest page-and-one that pass the filters, were created
 * at or after `since` (a creationTimestamp) and come after the cursor, in order. An account
 * may have thousands live: each is looked at once (no key, no sort of them all), and a page
 * deep in the history, older than every live job, keeps none. Take it before reading the
 * archive (see JobService.list).
 */
export function newestLive(live: Iterable<GenerationJob>, q: ListQuery, since = ''): LiveEntries {
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  const keep = q.limit + 1;
  const entries: LiveEntries['newest'] = [];
  for (const job of live) {
    if ((q.status && phaseOf(job) !== q.status) || (q.model && job.spec.model !== q.model)) continue;
    const created = job.metadata.creationTimestamp ?? '';
    if (created < since) continue;
    const name = job.metadata.name ?? '';
    // Strictly older than the cursor, and newer than the last kept once there are enough.
    if (after && !olderThan(created, name, after[0], after[1])) continue;
    const last = entries.length === keep ? entries[keep - 1]!.key : undefined;
    if (last && !olderThan(last[0], last[1], created, name)) continue;
    const key: Key = [created, name];
    let [lo, hi] = [0, entries.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newestFirst(entries[mid]!.key, key) > 0) hi = mid;
      else lo = mid + 1;
    }
    entries.splice(lo, 0, { key, job });
    if (entries.length > keep) entries.pop();
  }
  return { newest: entries };
}

/**
 * One page of jobs, newest first by (creationTimestamp, name). The cursor is the key of
 * the last job shown, so jobs created meanwhile (all newer) never shift the pages that
 * follow, and a job is never shown twice. `archived` are the archive's next jobs after the
 * cursor that pass the filters (at least a page and one of them), as records: a job keeps
 * its key when it moves from live to archived, and one found in both (the move in progress)
 * is shown once. `record` makes a live job's record (the api's adds the queue fields, as GET
 * does); it makes a finished job's exactly as the archive stored it.
 */
export function listPage(
  live: LiveEntries,
  q: ListQuery,
  archived: readonly ArchivedRecord[] = [],
  record: (job: GenerationJob) => JobRecord = jobRecord,
): ListPage {
  const { newest } = live;
  // A live job not in `newest` is older than a whole page of live ones: its archived copy,
  // if it has one, falls past this page too.
  const names = new Set(newest.map(({ key }) => key[1]));
  const matching = [
    ...newest.map(({ key, job }) => ({ key, json: () => JSON.stringify(record(job)) })),
    ...archived
      .filter((a) => !names.has(a.id))
      .map((a) => ({ key: [a.createdAt, a.id] as const, json: () => a.record })),
  ].sort((a, b) => newestFirst(a.key, b.key));
  const page = matching.slice(0, q.limit);
  const last = page.at(-1);
  return {
    jobs: page.map((e) => e.json()),
    nextCursor: matching.length > q.limit && last ? encodeCursor(last.key) : null,
  };
}

/** The body of GET /v1/jobs: `{jobs, nextCursor}` with the records' text as it is. */
export function listJson(page: ListPage): string {
  return `{"jobs":[${page.jobs.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
}

/** The cursor of a position in the list: `<createdAt>_<name>` (JOB_CURSOR in schemas.ts). */
export function encodeCursor(key: Key): string {
  return `${key[0]}_${key[1]}`;
}

/** `<createdAt>_<name>` (JOB_CURSOR in schemas.ts): any such string is a position in the list. */
export function decodeCursor(cursor: string): Key {
  const at = cursor.indexOf('_');
  if (at > 0 && at < cursor.length - 1) return [cursor.slice(0, at), cursor.slice(at + 1)];
  throw new AppError('VALIDATION_ERROR', 'cursor is not one this service issued', {
    errors: [{ pointer: '/cursor', message: 'invalid cursor' }],
  });
}
