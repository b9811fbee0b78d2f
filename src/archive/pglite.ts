import { PGlite } from '@electric-sql/pglite';
import type { SqlClient } from './sql-client.ts';

/**
 * PostgreSQL compiled to WebAssembly, inside this process, its data in `dataDir` (memory
 * when undefined): the dev mode's archive, nothing to install.
 */
export async function pgliteClient(dataDir?: string): Promise<SqlClient> {
  const db = await PGlite.create(dataDir);
  const query = async <R extends object>(text: string, params?: unknown[]) =>
    (await db.query<R>(text, params)).rows;
  const exec = async (script: string) => {
    await db.exec(script);
  };
  // One connection: a session-level advisory lock does not exclude this process's other
  // sessions (the lock is re-entrant), so sessions take turns here instead.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    query,
    exec,
    session: (fn) => {
      const run = turn.then(() => fn({ query, exec }));
      turn = run.catch(() => {});
      return run;
    },
    close: () => db.close(),
  };
}
