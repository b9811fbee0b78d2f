import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { pgliteClient } from '../../src/archive/pglite.ts';
import { postgresClient } from '../../src/archive/postgres.ts';

/** One archive flavour under test: the same SQL runs on both. */
export interface Flavour {
  name: 'pglite' | 'postgres';
  /** A fresh archive on an empty database. */
  open(): Promise<Archive>;
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
  return {
    name: 'postgres',
    server,
    async open() {
      const db = `t${++n}`;
      const admin = postgresClient({ connectionString: server.url });
      await admin.query(`CREATE DATABASE ${db}`);
      await admin.close();
      const a = new Archive(
        postgresClient({ connectionString: server.url.replace(/\/postgres$/, `/${db}`), timeoutMs: 2_000 }),
      );
      opened.push(a);
      return a;
    },
    async stop() {
      await Promise.all(opened.map((a) => a.close().catch(() => {})));
      await server.stop();
    },
  };
}
