import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../../k8s/types.ts';
import { listPage } from './list.ts';
import { JOB_CURSOR } from './schemas.ts';

const job = (name: string, createdAt: string, phase?: 'completed'): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name, creationTimestamp: createdAt },
  spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
  ...(phase ? { status: { phase } } : {}),
});

describe('listPage', () => {
  it('pages newest first, ties by name, and never repeats or skips a job', () => {
    const jobs = ['a', 'b', 'c', 'd', 'e'].map((n, i) => job(n, `2026-01-01T00:00:0${i < 2 ? 0 : i}Z`));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listPage(jobs, { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.jobs.map((j) => j.jobId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('filters by status and model', () => {
    const jobs = [job('x', '2026-01-01T00:00:01Z', 'completed'), job('y', '2026-01-01T00:00:02Z')];
    expect(listPage(jobs, { limit: 10, status: 'completed' }).jobs.map((j) => j.jobId)).toEqual(['x']);
    expect(listPage(jobs, { limit: 10, model: 'other' }).jobs).toEqual([]);
  });

  it('merges live and archived jobs in one order and shows a job found in both once', () => {
    const live = [job('b', '2026-01-01T00:00:02Z'), job('d', '2026-01-01T00:00:04Z')];
    // 'd' is being archived: upserted, its resource not yet deleted.
    const archived = [
      job('d', '2026-01-01T00:00:04Z', 'completed'),
      job('c', '2026-01-01T00:00:03Z', 'completed'),
    ];
    const first = listPage(live, { limit: 2 }, archived);
    expect(first.jobs.map((j) => j.jobId)).toEqual(['d', 'c']);
    // By the next page 'd' and 'b' moved to the archive: the cursor still picks up after 'c'.
    const next = listPage([], { limit: 2, cursor: first.nextCursor! }, [job('b', '2026-01-01T00:00:02Z')]);
    expect(next).toEqual({ jobs: [expect.objectContaining({ jobId: 'b' })], nextCursor: null });
  });

  it('refuses a cursor it did not issue', () => {
    expect(() => listPage([], { limit: 1, cursor: 'bm9wZQ' })).toThrow(/cursor/);
  });

  it('issues cursors of the shape the document declares, and takes any such cursor as a position', () => {
    const jobs = ['a', 'b', 'c'].map((n, i) => job(n, `2026-01-01T00:00:0${i}Z`));
    const cursor = listPage(jobs, { limit: 1 }).nextCursor ?? '';
    expect(cursor).toMatch(JOB_CURSOR);
    // A cursor no page issued (a job since deleted) still says where to continue.
    const made = '2026-01-01T00:00:01Z_zz';
    expect(made).toMatch(JOB_CURSOR);
    expect(listPage(jobs, { limit: 5, cursor: made }).jobs.map((j) => j.jobId)).toEqual(['b', 'a']);
  });
});
