import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import type { SqlClient } from '../../src/archive/sql-client.ts';
import { makeTestTls, type TestTls } from '../../src/webhooks/test-tls.ts';

// A PostgreSQL server whose certificate a private CA signed, as a managed database's is
// (chart: archive.postgres.tls.caSecret, GENJOBS_ARCHIVE_TLS_CA_FILE).
let pg: LocalPostgres;
let tls: TestTls;

beforeAll(async () => {
  tls = await makeTestTls();
  pg = await LocalPostgres.start({ tls });
});
afterAll(async () => pg?.stop());

/** Whether the client's connection is encrypted, as the server sees it. */
async function encrypted(sql: SqlClient): Promise<boolean> {
  const rows = await sql.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
  return rows[0]?.ssl === true;
}

describe('the archive over TLS with a CA of its own', () => {
  it.each(['', '?sslmode=require', '?sslmode=verify-full', '?sslmode=prefer'])(
    'connects encrypted and verified whatever the string says: %s',
    async (params) => {
      const sql = postgresClient({ connectionString: `${pg.url}${params}`, tlsCa: tls.ca, timeoutMs: 3_000 });
      try {
        expect(await encrypted(sql)).toBe(true);
      } finally {
        await sql.close();
      }
    },
  );

  it('refuses a server its CA did not sign, and a string that turns TLS off', async () => {
    const other = await makeTestTls();
    const sql = postgresClient({
      connectionString: `${pg.url}?sslmode=require`,
      tlsCa: other.ca,
      timeoutMs: 3_000,
    });
    try {
      await expect(sql.query('SELECT 1')).rejects.toThrow(/certificate/);
    } finally {
      await sql.close();
    }
    expect(() => postgresClient({ connectionString: `${pg.url}?sslmode=disable`, tlsCa: tls.ca })).toThrow(
      /sslmode=disable, but a CA was given/,
    );
  });

  it('without a CA the string decides: sslmode=disable is plain text', async () => {
    const sql = postgresClient({ connectionString: `${pg.url}?sslmode=disable`, timeoutMs: 3_000 });
    try {
      expect(await encrypted(sql)).toBe(false);
    } finally {
      await sql.close();
    }
  });
});
