import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import type { SqlClient } from '../../src/archive/sql-client.ts';

let pg: LocalPostgres;
let sql: SqlClient;
beforeAll(async () => {
  pg = await LocalPostgres.start();
  // A statement's deadline is twice the timeout: 600 ms.
  sql = postgresClient({ connectionString: pg.url, timeoutMs: 300 });
});
afterAll(async () => {
  await sql?.close();
  await pg?.stop();
});

describe('a statement PostgreSQL does not answer in time', () => {
  it('is given up after its deadline, and the pool goes on with other connections', async () => {
    for (const slow of [
      () => sql.query('SELECT pg_sleep(5)'),
      () => sql.exec('SELECT pg_sleep(5); SELECT 1'),
      () => sql.session((s) => s.query('SELECT pg_sleep(5)')),
    ]) {
      const started = Date.now();
      await expect(slow()).rejects.toThrow('PostgreSQL did not answer within 600 ms');
      // The deadline, and at most a tick of the shared ticker (150 ms here) after it.
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
      expect(Date.now() - started).toBeLessThan(2_000);
      const next = Date.now();
      expect(await sql.query<{ x: number }>('SELECT 1 AS x')).toEqual([{ x: 1 }]);
      expect(Date.now() - next).toBeLessThan(600);
    }
  });

  it('a connection back in the pool is not cut, however long it waits there', async () => {
    const pid = async () => (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
    const before = await pid();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await pid()).toBe(before);
  });

  it('each statement of a session has the whole deadline', async () => {
    const slept = await sql.session(async (s) => {
      for (let i = 0; i < 3; i++) await s.query('SELECT pg_sleep(0.4)');
      return s.query<{ x: number }>('SELECT 2 AS x');
    });
    expect(slept).toEqual([{ x: 2 }]);
  });

  it('an answer in time is the answer, and an error of the statement is its own', async () => {
    expect(await sql.query<{ n: number }>('SELECT $1::int AS n', [7], 'seven')).toEqual([{ n: 7 }]);
    await expect(sql.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    expect(await sql.query<{ n: number }>('SELECT $1::int AS n', [8], 'seven')).toEqual([{ n: 8 }]);
  });
});
