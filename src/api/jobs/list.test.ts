import { describe, expect, it } from 'vitest';
import { jobRecord } from '../../jobs/record.ts';
import type { GenerationJob } from '../../k8s/types.ts';
import { parseQuery } from '../body.ts';
import { type ListPage, type ListQuery, newestLive, listPage as pageOf } from './list.ts';
import { JOB_CURSOR, JobListQuery } from './schemas.ts';

const job = (name: string, createdAt: string, phase?: 'completed'): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name, creationTimestamp: createdAt },
  spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
  ...(phase ? { status: { phase } } : {}),
});

/** A page of these live jobs (picked as the api picks them) and archived records. */
const listPage = (live: GenerationJob[], q: ListQuery, archived?: Parameters<typeof pageOf>[2]) =>
  pageOf(newestLive(live, q), q, archived);
/** The ids of a page's records. */
const ids = (page: ListPage) => page.jobs.map((j) => (JSON.parse(j) as { jobId: string }).jobId);
/** A job as the archive answers a page: its key and stored record. */
const archivedAs = (j: GenerationJob) => ({
  id: j.metadata.name ?? '',
  createdAt: j.metadata.creationTimestamp ?? '',
  record: JSON.stringify(jobRecord(j)),
});

describe('listPage', () => {
  it('pages newest first, ties by name, and never repeats or skips a job', () => {
    const jobs = ['a', 'b', 'c', 'd', 'e'].map((n, i) => job(n, `2026-01-01T00:00:0${i < 2 ? 0 : i}Z`));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listPage(jobs, { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('filters by status and model', () => {
    const jobs = [job('x', '2026-01-01T00:00:01Z', 'completed'), job('y', '2026-01-01T00:00:02Z')];
    expect(ids(listPage(jobs, { limit: 10, status: 'completed' }))).toEqual(['x']);
    expect(listPage(jobs, { limit: 10, model: 'other' }).jobs).toEqual([]);
  });

  it('merges live and archived jobs in one order and shows a job found in both once', () => {
    const live = [job('b', '2026-01-01T00:00:02Z'), job('d', '2026-01-01T00:00:04Z')];
    // 'd' is being archived: upserted, its resource not yet deleted.
    const archived = [
      job('d', '2026-01-01T00:00:04Z', 'completed'),
      job('c', '2026-01-01T00:00:03Z', 'completed'),
    ].map(archivedAs);
    const first = listPage(live, { limit: 2 }, archived);
    expect(ids(first)).toEqual(['d', 'c']);
    // By the next page 'd' and 'b' moved to the archive: the cursor still picks up after 'c'.
    const next = listPage([], { limit: 2, cursor: first.nextCursor! }, [
      archivedAs(job('b', '2026-01-01T00:00:02Z', 'completed')),
    ]);
    expect([ids(next), next.nextCursor]).toEqual([['b'], null]);
  });

  it('pages as a sort of every job would, whatever the order live jobs come in (random cases)', () => {
    // A small generator with a seed, so a failure can be replayed.
    let seed = 20261124;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const keyOf = (j: GenerationJob) => `${j.metadata.creationTimestamp}_${j.metadata.name}`;
    for (let round = 0; round < 300; round++) {
      const all = Array.from({ length: 1 + rand(60) }, (_, i) =>
        job(
          `j${i}`,
          `2026-01-01T00:00:${String(rand(20)).padStart(2, '0')}Z`,
          rand(2) ? 'completed' : undefined,
        ),
      );
      // Some live, some archived, some both (being archived); live ones in any order.
      const live = all.filter(() => rand(3) > 0).sort(() => rand(3) - 1);
      const liveNames = new Set(live.map((j) => j.metadata.name));
      const archivedAll = all
        .filter((j) => !liveNames.has(j.metadata.name) || rand(4) === 0)
        .sort((a, b) => (keyOf(a) < keyOf(b) ? 1 : -1));
      const q = { limit: 1 + rand(8), ...(rand(3) === 0 ? { status: 'completed' } : {}) };
      const expected = all
        .filter((j) => !q.status || j.status?.phase === q.status)
        .sort((a, b) => (keyOf(a) < keyOf(b) ? 1 : -1))
        .map((j) => j.metadata.name);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const after = cursor;
        // The archive answers a page and one after the cursor, as JobHistory.page asks.
        const archived = archivedAll
          .filter((j) => (!q.status || j.status?.phase === q.status) && (!after || keyOf(j) < after))
          .slice(0, q.limit + 1)
          .map(archivedAs);
        const page = listPage(live, { ...q, ...(after ? { cursor: after } : {}) }, archived);
        seen.push(...ids(page));
        cursor = page.nextCursor ?? undefined;
      } while (cursor && seen.length <= all.length);
      expect(seen, `round ${round}`).toEqual(expected);
    }
  });

  it('refuses a cursor it did not issue', () => {
    expect(() => listPage([], { limit: 1, cursor: 'bm9wZQ' })).toThrow(/cursor/);
  });

  it.each([
    // A fraction: compared as text with whole seconds, it skipped the jobs of its second.
    '2026-11-29T11:07:07.999Z_a',
    '2026-13-45T99:99:99Z_abc',
    '2026-11-00T11:07:50Z_a',
    '2026-11-29T24:00:00Z_a',
    '2026-11-29T23:60:00Z_a',
  ])('refuses the cursor %s: 400, as one it did not issue', (cursor) => {
    expect(() => parseQuery(JobListQuery, { cursor })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        errors: [{ pointer: '/cursor', message: 'not a cursor this service issues' }],
      }),
    );
  });

  it('takes any cursor of the declared shape as a position, compared as text', () => {
    const cursor = parseQuery(JobListQuery, { cursor: '2026-02-30T00:00:00Z_a' }).cursor;
    const jobs = [job('a', '2026-02-28T12:00:00Z'), job('b', '2026-03-01T00:00:00Z')];
    expect(ids(listPage(jobs, { limit: 5, cursor }))).toEqual(['a']);
  });

  it('issues cursors of the shape the document declares, and takes any such cursor as a position', () => {
    const jobs = ['a', 'b', 'c'].map((n, i) => job(n, `2026-01-01T00:00:0${i}Z`));
    const cursor = listPage(jobs, { limit: 1 }).nextCursor ?? '';
    expect(cursor).toMatch(JOB_CURSOR);
    // A cursor no page issued (a job since deleted) still says where to continue.
    const made = '2026-01-01T00:00:01Z_zz';
    expect(made).toMatch(JOB_CURSOR);
    expect(ids(listPage(jobs, { limit: 5, cursor: made }))).toEqual(['b', 'a']);
  });
});
