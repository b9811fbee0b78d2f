import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Archive } from '../../src/archive/archive.ts';
import { MIGRATIONS, migrate } from '../../src/archive/migrations.ts';
import { pgliteClient } from '../../src/archive/pglite.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import type { SqlClient } from '../../src/archive/sql-client.ts';
import { ArchiveUnavailableError } from '../../src/archive/store.ts';
import { jobRecord } from '../../src/jobs/record.ts';
import { API_VERSION, type Upload } from '../../src/k8s/types.ts';
import { at, finishedJob } from './fixtures.ts';
import { type Flavour, pglite, postgres } from './flavours.ts';

for (const make of [pglite, postgres]) {
  describe(`archive store on ${make.name}`, () => {
    let flavour: Flavour;
    beforeAll(async () => {
      flavour = await make();
    });
    afterAll(() => flavour?.stop());

    it('an upsert twice is one row, and the job reads back as it was written', async () => {
      const archive = await flavour.open();
      const job = finishedJob('a1');
      await archive.upsertJobs([job]);
      await archive.upsertJobs([job]);
      expect(await archive.count()).toEqual({ jobs: 1, uploads: 0 });
      const back = await archive.getJob('a1');
      // Byte for byte the record the api serves from the live resource.
      expect(JSON.stringify(jobRecord(back!))).toBe(JSON.stringify(jobRecord(job)));
      expect(back?.metadata).not.toHaveProperty('managedFields');
      expect(await archive.getJob('nope')).toBeUndefined();
    });

    it('look-ups made together (one query for several) answer each its own job, a missing one nothing', async () => {
      const archive = await flavour.open();
      const jobs = Array.from({ length: 12 }, (_, i) => finishedJob(`c${i}`, { createdAt: at(i) }));
      await archive.upsertJobs(jobs);
      const ids = [...jobs.map((j) => j.metadata.name ?? ''), 'nope', 'c3'];
      const got = await Promise.all(ids.map((id) => archive.getJob(id)));
      expect(got.map((j) => j?.metadata.name)).toEqual([...ids.slice(0, 12), undefined, 'c3']);
      for (const [i, job] of jobs.entries()) {
        expect(JSON.stringify(jobRecord(got[i]!))).toBe(JSON.stringify(jobRecord(job)));
      }
    });

    it('lists one account newest first, a page at a time, with status and model filters', async () => {
      const archive = await flavour.open();
      const jobs = Array.from({ length: 30 }, (_, i) =>
        finishedJob(`j${String(i).padStart(2, '0')}`, {
          createdAt: at(Math.floor(i / 2)), // pairs share a second: the id breaks the tie
          phase: i % 3 === 0 ? 'failed' : 'completed',
          model: i % 2 ? 'flux-schnell' : 'kling',
        }),
      );
      await archive.upsertJobs([...jobs, finishedJob('other', { account: 'someone-else' })]);
      const seen: string[] = [];
      let before: readonly [string, string] | undefined;
      for (;;) {
        const page = await archive.listJobs({ account: 'acme', limit: 7, before });
        if (page.length === 0) break;
        seen.push(...page.map((j) => j.metadata.name ?? ''));
        const last = page.at(-1)!;
        before = [last.metadata.creationTimestamp ?? '', last.metadata.name ?? ''];
      }
      expect(seen).toEqual(jobs.map((j) => j.metadata.name).reverse());
      const failedKling = await archive.listJobs({
        account: 'acme',
        status: 'failed',
        model: 'kling',
        limit: 50,
      });
      expect(failedKling.map((j) => j.metadata.name)).toEqual(['j24', 'j18', 'j12', 'j06', 'j00']);
    });

    it("pages records as stored (the live record's text); a row from before the record column, or of another shape, from its resource", async () => {
      const archive = await flavour.open();
      const jobs = ['r1', 'r2', 'r3'].map((id, i) => finishedJob(id, { createdAt: at(i) }));
      await archive.upsertJobs(jobs);
      const sql = (archive as unknown as { sql: SqlClient }).sql;
      // r3: as a row archived before the column existed; r2: a record of another version.
      await sql.query("UPDATE genjobs_jobs SET record = NULL, record_version = NULL WHERE id = 'r3'");
      await sql.query(
        `UPDATE genjobs_jobs SET record = '{"stale":true}', record_version = 0 WHERE id = 'r2'`,
      );
      const page = await archive.listRecords({ account: 'acme', limit: 10 });
      expect(page.map((r) => [r.id, r.createdAt])).toEqual([
        ['r3', at(2)],
        ['r2', at(1)],
        ['r1', at(0)],
      ]);
      for (const r of page) {
        const job = jobs.find((j) => j.metadata.name === r.id)!;
        expect(r.record).toBe(JSON.stringify(jobRecord(job)));
      }
      const next = await archive.listRecords({ account: 'acme', limit: 10, before: [at(1), 'r2'] });
      expect(next.map((r) => r.id)).toEqual(['r1']);
      // Only those made at or after `since` (the account's own, not a deleted namesake's).
      const since = await archive.listRecords({ account: 'acme', since: at(1), limit: 10 });
      expect(since.map((r) => r.id)).toEqual(['r3', 'r2']);
      // One job's record (GET /v1/jobs/{id}) the same way, with its owner, looked up together.
      const one = await Promise.all(['r1', 'r2', 'r3', 'nope'].map((id) => archive.getRecord(id)));
      expect(one.map((r) => r && [r.account, r.createdAt])).toEqual([
        ['acme', at(0)],
        ['acme', at(1)],
        ['acme', at(2)],
        undefined,
      ]);
      for (const [i, job] of jobs.entries()) expect(one[i]?.record).toBe(JSON.stringify(jobRecord(job)));
    });

    it("serves a job's stored record text as it is, without rebuilding it from the resource", async () => {
      const archive = await flavour.open();
      await archive.upsertJobs([finishedJob('t1')]);
      const sql = (archive as unknown as { sql: SqlClient }).sql;
      const text = `{"jobId":"t1","status":"completed","note":"as stored"}`;
      await sql.query(`UPDATE genjobs_jobs SET record = $1 WHERE id = 't1'`, [text]);
      expect(await archive.getRecord('t1')).toMatchObject({ account: 'acme', record: text });
    });

    it("reads each model's latest completed runs in one query, and no other model's or ending's", async () => {
      const archive = await flavour.open();
      const runs = Array.from({ length: 8 }, (_, i) =>
        finishedJob(`run${i}`, { model: 'kling', createdAt: at(i * 100), completedAt: at(i * 100 + 40) }),
      );
      await archive.upsertJobs([
        ...runs,
        finishedJob('failed', { model: 'kling', phase: 'failed', completedAt: at(5_000) }),
        finishedJob('cancelled', { model: 'kling', phase: 'cancelled', completedAt: at(5_001) }),
        finishedJob('flux', { model: 'flux-schnell', completedAt: at(5_002) }),
        finishedJob('not-asked', { model: 'veo', completedAt: at(5_003) }),
      ]);
      const latest = await archive.recentRuns(['kling', 'flux-schnell', 'no-such-model'], 5);
      const byName = (a: { id?: string }, b: { id?: string }) => (a.id ?? '').localeCompare(b.id ?? '');
      expect(latest.sort(byName)).toEqual(
        [...runs.slice(3), finishedJob('flux', { model: 'flux-schnell', completedAt: at(5_002) })]
          .map((j) => ({
            id: j.metadata.name,
            model: j.spec.model,
            input: j.spec.input,
            startedAt: j.status?.startedAt,
            completedAt: j.status?.completedAt,
          }))
          .sort(byName),
      );
      expect(await archive.recentRuns([], 5)).toEqual([]);
    });

    it('retention finds rows finished before a time, oldest first, and deletes them in batches', async () => {
      const archive = await flavour.open();
      await archive.upsertJobs(
        Array.from({ length: 5 }, (_, i) => finishedJob(`r${i}`, { completedAt: at(i * 60) })),
      );
      const expired = await archive.expired(new Date(Date.parse(at(150))), 2);
      expect(expired).toEqual([
        { kind: 'job', id: 'r0' },
        { kind: 'job', id: 'r1' },
      ]);
      expect(await archive.deleteRows(expired)).toBe(2);
      expect(await archive.deleteRows(expired)).toBe(0);
      expect((await archive.expired(new Date(Date.parse(at(150))), 10)).map((r) => r.id)).toEqual(['r2']);
    });

    it("finds an account's own rows to erase (jobs and uploads created since the account), not a namesake's or another's", async () => {
      const archive = await flavour.open();
      await archive.upsertJobs([
        finishedJob('mine-1', { account: 'gone', createdAt: at(100) }),
        finishedJob('mine-2', { account: 'gone', createdAt: at(200) }),
        finishedJob('namesake', { account: 'gone', createdAt: at(10) }),
        finishedJob('theirs', { account: 'other', createdAt: at(100) }),
      ]);
      const upload = (name: string, account: string, createdAt: string) =>
        ({
          apiVersion: API_VERSION,
          kind: 'Upload',
          metadata: { name, creationTimestamp: createdAt },
          spec: {
            account,
            filename: 'a.png',
            contentType: 'image/png',
            maxSize: 1,
            objectKey: 'k',
            expiresAt: createdAt,
          },
          status: { phase: 'expired', expiredAt: createdAt },
        }) as Upload;
      await archive.upsertUploads([upload('u-mine', 'gone', at(150)), upload('u-old', 'gone', at(5))]);
      const rows = async (limit: number) =>
        (await archive.accountRows('gone', { since: at(50) }, limit)).map((r) => `${r.kind}:${r.id}`).sort();
      expect(await rows(10)).toEqual(['job:mine-1', 'job:mine-2', 'upload:u-mine']);
      const before = await archive.accountRows('gone', { before: at(100) }, 10);
      expect(before.map((r) => r.id).sort()).toEqual(['namesake', 'u-old']);
      expect(before.find((r) => r.id === 'u-old')?.objectKey).toBe('k');
      expect(await rows(2)).toHaveLength(2);
      expect(await archive.deleteRows(await archive.accountRows('gone', { since: at(50) }, 10))).toBe(3);
      expect(await rows(10)).toEqual([]);
      expect((await archive.accountRows('gone', {}, 10)).map((r) => r.id).sort()).toEqual([
        'namesake',
        'u-old',
      ]);
    });

    it('migrations run once however many replicas start together', async () => {
      // A database nobody migrated yet.
      let sql: SqlClient;
      if (flavour.server) {
        const admin = postgresClient({ connectionString: flavour.server.url });
        await admin.query('CREATE DATABASE migrations_race');
        await admin.close();
        sql = postgresClient({
          connectionString: flavour.server.url.replace(/\/postgres$/, '/migrations_race'),
        });
      } else sql = await pgliteClient();
      try {
        const runs = await Promise.all([migrate(sql), migrate(sql), migrate(sql)]);
        expect(runs.flat().sort()).toEqual(MIGRATIONS.map((_, i) => i + 1));
        const rows = await sql.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM genjobs_schema_migrations',
        );
        expect(rows[0]?.n).toBe(MIGRATIONS.length);
        expect(await migrate(sql)).toEqual([]);
      } finally {
        await sql.close();
      }
    });
  });
}

describe('archive on a stopped PostgreSQL server', () => {
  it('fails with ArchiveUnavailableError, then works again once the server is back', async () => {
    const flavour = await postgres();
    try {
      const archive = await flavour.open();
      await archive.upsertJobs([finishedJob('f1')]);
      await flavour.server!.pause();
      await expect(archive.getJob('f1')).rejects.toBeInstanceOf(ArchiveUnavailableError);
      await flavour.server!.resume();
      expect((await archive.getJob('f1'))?.metadata.name).toBe('f1');
    } finally {
      await flavour.stop();
    }
  });
});

it('tells which schema versions it applied, once: an operator sees the upgrade in the log', async () => {
  const heard: number[][] = [];
  const archive = new Archive(await pgliteClient(), { onMigrated: (v) => heard.push(v) });
  await archive.ready();
  await archive.count();
  expect(heard).toEqual([MIGRATIONS.map((_, i) => i + 1)]);
  await archive.close();
});
