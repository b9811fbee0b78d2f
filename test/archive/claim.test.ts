import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Archive } from '../../src/archive/archive.ts';
import { type ArchiveOwner, ownerMark } from '../../src/archive/claim.ts';
import { MIGRATIONS } from '../../src/archive/migrations.ts';
import type { SqlClient } from '../../src/archive/sql-client.ts';
import { ArchiveUnavailableError } from '../../src/archive/store.ts';
import { finishedJob } from './fixtures.ts';
import { type Flavour, pglite, postgres } from './flavours.ts';

const secret = (c: string) => c.repeat(32);
const owner = (namespace: string, ...secrets: string[]): ArchiveOwner => ({
  marks: secrets.map(ownerMark),
  namespace,
  api: `https://${namespace}.example`,
});

for (const make of [pglite, postgres]) {
  describe(`an archive database on ${make.name} is one install's`, () => {
    let flavour: Flavour;
    beforeAll(async () => {
      flavour = await make();
    });
    afterAll(() => flavour?.stop());

    it('another install is refused every use and changes nothing; its own replicas and a rotated secret are not', async () => {
      const connect = await flavour.database();
      const claimed: string[] = [];
      /** A process of an install: its own Archive (and connection) on the shared database. */
      const process = async (o: ArchiveOwner) =>
        new Archive(await connect(), {
          owner: o,
          onClaimed: (outcome) => claimed.push(`${o.namespace}:${outcome}`),
        });
      const staging = owner('gj-staging', secret('s'));

      const first = await process(staging);
      await first.upsertJobs([finishedJob('s1', { account: 'demo' })]);
      const replica = await process(staging);
      expect((await replica.getJob('s1'))?.metadata.name).toBe('s1');
      expect(claimed).toEqual(['gj-staging:claimed']);

      // Production pointed at the same database: its demo would read staging's demo's jobs.
      const prod = await process(owner('gj-prod', secret('p')));
      const refused = prod.getJob('s1');
      await expect(refused).rejects.toBeInstanceOf(ArchiveUnavailableError);
      await expect(refused).rejects.toThrow(
        /holds the job history of another genjobs install \(namespace gj-staging, api https:\/\/gj-staging\.example, claimed \d{4}-\d\d-\d\dT[\d:]+Z\); give each install its own database.*stop that one, then delete its claim \(DELETE FROM genjobs_install\)/,
      );
      await expect(prod.listJobs({ account: 'demo', limit: 10 })).rejects.toThrow(/another genjobs install/);
      await expect(prod.upsertJobs([finishedJob('p1', { account: 'demo' })])).rejects.toThrow(
        /another genjobs/,
      );
      await expect(prod.deleteRows([{ kind: 'job', id: 's1' }])).rejects.toThrow(/another genjobs/);
      await expect(prod.expired(new Date(), 10)).rejects.toThrow(/another genjobs/);
      expect(await first.count()).toEqual({ jobs: 1, uploads: 0 });

      // A rolling rotation: new replicas know both secrets and move the claim; the ones not
      // yet replaced, on the old secret alone, go on; once the old secret is dropped too.
      const rotated = await process(owner('gj-staging', secret('t'), secret('s')));
      expect((await rotated.getJob('s1'))?.metadata.name).toBe('s1');
      expect(claimed).toEqual(['gj-staging:claimed', 'gj-staging:renewed']);
      expect((await (await process(staging)).getJob('s1'))?.metadata.name).toBe('s1');
      expect((await (await process(owner('gj-staging', secret('t')))).count()).jobs).toBe(1);
      expect(claimed).toHaveLength(2);
      await expect((await process(owner('gj-prod', secret('p')))).count()).rejects.toThrow(/gj-staging/);

      // Refused before anything is written, a pending migration included: staging's schema
      // one step behind (its last step's row gone), production must not run that step.
      const sql: SqlClient = await connect();
      await sql.query(
        'DELETE FROM genjobs_schema_migrations WHERE version = (SELECT max(version) FROM genjobs_schema_migrations)',
      );
      await expect((await process(owner('gj-prod', secret('p')))).count()).rejects.toThrow(
        /another genjobs install/,
      );
      const [steps] = await sql.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM genjobs_schema_migrations',
      );
      expect(steps?.n).toBe(MIGRATIONS.length - 1);
      await sql.query('INSERT INTO genjobs_schema_migrations (version) VALUES ($1)', [MIGRATIONS.length]);

      // Handing the history over, as the message says: the next install to use it claims it,
      // and a process of the old one still running deletes nothing more at once (its other
      // uses are refused within a minute, when it asks again).
      await sql.query('DELETE FROM genjobs_install');
      const takeover = await process(owner('gj-prod', secret('p')));
      expect((await takeover.getJob('s1'))?.metadata.name).toBe('s1');
      expect(claimed.at(-1)).toBe('gj-prod:claimed');
      await expect((await process(staging)).count()).rejects.toThrow(/namespace gj-prod/);
      await expect(first.deleteRows([{ kind: 'job', id: 's1' }])).rejects.toThrow(/namespace gj-prod/);
      expect((await takeover.getJob('s1'))?.metadata.name).toBe('s1');
    });

    it('an archive without an owner (tests, the bench, a read without the secret) claims nothing', async () => {
      const connect = await flavour.database();
      const plain = new Archive(await connect());
      await plain.upsertJobs([finishedJob('x1')]);
      const sql = await connect();
      expect(await sql.query('SELECT * FROM genjobs_install')).toEqual([]);
      const later = new Archive(await connect(), { owner: owner('gj', secret('g')) });
      expect(await later.count()).toEqual({ jobs: 1, uploads: 0 });
    });
  });
}

it('an install mark is keyed by the secret and tells nothing of it', () => {
  expect(ownerMark(secret('a'))).toMatch(/^[0-9a-f]{32}$/);
  expect(ownerMark(secret('a'))).toBe(ownerMark(secret('a')));
  expect(ownerMark(secret('a'))).not.toBe(ownerMark(secret('b')));
  expect(ownerMark(secret('a'))).not.toContain('aaaa');
});
