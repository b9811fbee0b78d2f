import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { pgliteClient } from '../../src/archive/pglite.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import type { SqlClient } from '../../src/archive/sql-client.ts';

/** One archive flavour under test: the same SQL runs on both. */
export interface Flavour {
  name: 'pglite' | 'postgres';
  /** A fresh archive on an empty database. */
  open(): Promise<Archive>;
  /** An empty database, and a way to connect to it as often as wanted (several processes' view). */
  database(): Promise<() => Promise<SqlClient>>;
  /** The real server, for fault tests (undefined for PGlite). */
  server?: LocalPostgres;
  stop(): Promise<void>;
}

export async function pglite(): Promise<Flavour> {
  const opened: Archive[] = [];
  return {
    name: 'pglite',
    async open() {
      const a = new Archive(await pgliteClient());
      opened.push(a);
      return a;
    },
    async database() {
      // PGlite is one process's database: every connection is the same client.
      const sql = await pgliteClient();
      opened.push(new Archive(sql));
      return async () => sql;
    },
    async stop() {
      await Promise.all(opened.map((a) => a.close()));
    },
  };
}

/** A real PostgreSQL server for this test file; each open() gets its own database. */
export async function postgres(): Promise<Flavour> {
  const server = await LocalPostgres.start();
  const opened: Archive[] = [];
  let n = 0;
  const database = async () => {
    const db = `t${++n}`;
    const admin = postgresClient({ connectionString: server.url });
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.close();
    return async () => {
      const sql = postgresClient({
        connectionString: server.url.replace(/\/postgres$/, `/${db}`),
        timeoutMs: 2_000,
      });
      // Closed at stop() with the others.
      opened.push(new Archive(sql));
      return sql;
    };
  };
  return {
    name: 'postgres',
    server,
    open: async () => new Archive(await (await database())()),
    database,
    async stop() {
      await Promise.all(opened.map((a) => a.close().catch(() => {})));
      await server.stop();
    },
  };
}
