import { AppError } from '../../errors.ts';
import { jobRecord, phaseOf } from '../../jobs/record.ts';
import type { GenerationJob } from '../../k8s/types.ts';

export interface ListQuery {
  status?: string;
  model?: string;
  limit: number;
  cursor?: string;
}

type Key = readonly [createdAt: string, name: string];

const newestFirst = (a: Key, b: Key) =>
  a[0] !== b[0] ? (a[0] < b[0] ? 1 : -1) : a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0;

/**
 * One page of jobs, newest first by (creationTimestamp, name). The cursor is the key of
 * the last job shown, so jobs created meanwhile (all newer) never shift the pages that
 * follow, and a job is never shown twice.
 */
export function listPage(jobs: readonly GenerationJob[], q: ListQuery) {
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  const matching = jobs
    .filter((j) => (!q.status || phaseOf(j) === q.status) && (!q.model || j.spec.model === q.model))
    .map((j) => ({ j, key: [j.metadata.creationTimestamp ?? '', j.metadata.name ?? ''] as const }))
    .filter(({ key }) => !after || newestFirst(after, key) < 0)
    .sort((a, b) => newestFirst(a.key, b.key));
  const page = matching.slice(0, q.limit);
  const last = page.at(-1);
  return {
    jobs: page.map(({ j }) => jobRecord(j)),
    nextCursor: matching.length > q.limit && last ? `${last.key[0]}_${last.key[1]}` : null,
  };
}

/** `<createdAt>_<name>` (JOB_CURSOR in schemas.ts): any such string is a position in the list. */
function decodeCursor(cursor: string): Key {
  const at = cursor.indexOf('_');
  if (at > 0 && at < cursor.length - 1) return [cursor.slice(0, at), cursor.slice(at + 1)];
  throw new AppError('VALIDATION_ERROR', 'cursor is not one this service issued', {
    errors: [{ pointer: '/cursor', message: 'invalid cursor' }],
  });
}
