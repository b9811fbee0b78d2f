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
const keyOf = (j: GenerationJob): Key => [j.metadata.creationTimestamp ?? '', j.metadata.name ?? ''];

/**
 * One page of jobs, newest first by (creationTimestamp, name). The cursor is the key of
 * the last job shown, so jobs created meanwhile (all newer) never shift the pages that
 * follow, and a job is never shown twice. `archived` are the archive's next jobs after the
 * cursor (at least a page and one of them): a job keeps its key when it moves from live to
 * archived, and one found in both (the move in progress) is shown once. `record` makes each
 * job's record (the api's adds the queue fields, as GET does).
 *
 * An account may have thousands of live jobs: of those, only the newest page-and-one that
 * pass the filters and the cursor are kept (in order, as they are found), so a page costs
 * a look at each live job, not a sort of them all, and a page deep in the history, older
 * than every live job, keeps none.
 */
export function listPage(
  live: Iterable<GenerationJob>,
  q: ListQuery,
  archived: readonly GenerationJob[] = [],
  record: (job: GenerationJob) => JobRecord = jobRecord,
) {
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  const wanted = (j: GenerationJob) =>
    (!q.status || phaseOf(j) === q.status) &&
    (!q.model || j.spec.model === q.model) &&
    (!after || newestFirst(after, keyOf(j)) < 0);
  const keep = q.limit + 1;
  const newest: Array<{ j: GenerationJob; key: Key }> = [];
  for (const j of live) {
    if (!wanted(j)) continue;
    const key = keyOf(j);
    if (newest.length === keep && newestFirst(newest[keep - 1]!.key, key) <= 0) continue;
    let [lo, hi] = [0, newest.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newestFirst(newest[mid]!.key, key) > 0) hi = mid;
      else lo = mid + 1;
    }
    newest.splice(lo, 0, { j, key });
    if (newest.length > keep) newest.pop();
  }
  // A live job outside `newest` is older than a whole page of live ones: its archived copy,
  // if it has one, falls past this page too.
  const names = new Set(newest.map(({ j }) => j.metadata.name));
  const matching = [
    ...newest,
    ...archived.filter((j) => !names.has(j.metadata.name) && wanted(j)).map((j) => ({ j, key: keyOf(j) })),
  ].sort((a, b) => newestFirst(a.key, b.key));
  const page = matching.slice(0, q.limit);
  const last = page.at(-1);
  return {
    jobs: page.map(({ j }) => record(j)),
    nextCursor: matching.length > q.limit && last ? encodeCursor(last.key) : null,
  };
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
