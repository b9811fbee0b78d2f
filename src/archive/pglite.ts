import { PGlite } from '@electric-sql/pglite';
import type { SqlClient } from './sql-client.ts';

/**
 * PostgreSQL compiled to WebAssembly, inside this process, its data in `dataDir` (memory
 * when undefined): the dev mode's archive, nothing to install. One connection, so a
 * session is simply the client itself.
 */
export async function pgliteClient(dataDir?: string): Promise<SqlClient> {
  const db = await PGlite.create(dataDir);
  const query = async <R extends object>(text: string, params?: unknown[]) =>
    (await db.query<R>(text, params)).rows;
  const exec = async (script: string) => {
    await db.exec(script);
  };
  return {
    query,
    exec,
    session: (fn) => fn({ query, exec }),
    close: () => db.close(),
  };
}
