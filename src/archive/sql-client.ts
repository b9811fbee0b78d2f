/**
 * The little the archive needs from a PostgreSQL connection: a query, and a session on one
 * connection (a session-level advisory lock holds per connection). Both `pg` and PGlite
 * fit it, so the archive runs the same SQL on either.
 */
export interface SqlClient {
  /**
   * One statement. A `name` makes it a prepared statement on a server: parsed and planned
   * once per connection, then only bound and run (the hot reads, whose text never changes).
   */
  query<R extends object = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    name?: string,
  ): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /** Runs `fn` on one connection, released after. */
  session<T>(fn: (session: Pick<SqlClient, 'query' | 'exec'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
