import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import type { SqlClient } from './sql-client.ts';

export interface PostgresOptions {
  /** A libpq connection string (`postgres://user:pass@host:5432/db?sslmode=require`). */
  connectionString: string;
  /**
   * PEM of the CA that signed the server's certificate: TLS on, the certificate and its host
   * name verified against it, whatever the string's `sslmode` (`disable` is refused).
   */
  tlsCa?: string;
  /** Connections in the pool. */
  maxConnections?: number;
  /** Also the wait for a free connection: a down server fails fast rather than piling up requests. */
  timeoutMs?: number;
  /** Errors of idle connections (the server went away); without a listener they would crash the process. */
  onError?: (err: Error) => void;
}

/** A PostgreSQL server through a `pg` connection pool. */
export function postgresClient(o: PostgresOptions): SqlClient {
  const timeout = o.timeoutMs ?? 5_000;
  const pool = new pg.Pool({
    ...(o.tlsCa ? withCa(o.connectionString, o.tlsCa) : { connectionString: o.connectionString }),
    max: o.maxConnections ?? 10,
    connectionTimeoutMillis: timeout,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => o.onError?.(err));
  // A connection the deadline cuts fails its statement with the deadline's error; its own
  // listener keeps that from being an unhandled 'error' event of a checked-out client.
  pool.on('connect', (client) => client.on('error', () => {}));
  const deadlines = new Deadlines(timeout * 2);
  pool.on('acquire', (client) => deadlines.start(client));
  pool.on('release', (_err, client) => deadlines.end(client));
  pool.on('remove', (client) => deadlines.forget(client));
  return {
    async query<R extends object>(text: string, params?: unknown[], name?: string) {
      return (await pool.query(name ? { name, text, values: params } : { text, values: params })).rows as R[];
    },
    async exec(script: string) {
      // Without parameters pg sends the simple protocol, which runs several statements.
      await pool.query(script);
    },
    async session(fn) {
      const client = await pool.connect();
      // Each statement of a session gets the whole deadline (a migration runs several).
      const statement = (text: string, params?: unknown[]) => {
        deadlines.start(client);
        return client.query(text, params);
      };
      try {
        return await fn({
          query: async <R extends object>(text: string, params?: unknown[]) =>
            (await statement(text, params)).rows as R[],
          exec: async (script: string) => {
            await statement(script);
          },
        });
      } finally {
        client.release();
      }
    },
    close: async () => {
      deadlines.close();
      await pool.end();
    },
  };
}

/**
 * The deadline of every statement of one pool, kept by one ticker over the connections in
 * use, set and cleared by the pool's own acquire and release events (and by each statement
 * of a session). Measured at 2,000 live jobs and c=16 archive reads: pg's `query_timeout`
 * (a Node timer per query) and a deadline raced per statement both had 2.9-4.2 MB promoted
 * per scavenge and 4-5 ms pauses, this 0.2 MB and 1.8-1.9 ms, as with no deadline at all;
 * archived GET p99 8-11 ms against 6.4-8.7. A connection past its deadline (a server that
 * stopped answering: a stopped process, a partition) is cut within a tick: its statement
 * fails with the deadline's error, and the pool drops it. A released connection keeps its
 * entry, marked idle, until the pool removes it: a map whose keys are set and deleted at
 * every statement kept what its deleted entries had held through young-generation
 * collections (see Coalescer.take), here 1.2 MB of the 8 MB promoted in 6 s of archive look-ups.
 */
class Deadlines {
  private readonly ms: number;
  /** When each connection's statement is due; Infinity while it is idle in the pool. */
  private readonly due = new Map<pg.PoolClient, number>();
  private readonly ticker: NodeJS.Timeout;

  constructor(ms: number) {
    this.ms = ms;
    this.ticker = setInterval(() => this.tick(), Math.min(1_000, Math.max(50, ms / 4)));
    this.ticker.unref();
  }

  /** A connection is taken from the pool, or a session sends its next statement: due within the deadline. */
  start(client: pg.PoolClient): void {
    this.due.set(client, Date.now() + this.ms);
  }

  end(client: pg.PoolClient): void {
    this.due.set(client, Number.POSITIVE_INFINITY);
  }

  /** The pool closed the connection. */
  forget(client: pg.PoolClient): void {
    this.due.delete(client);
  }

  private tick(): void {
    const now = Date.now();
    for (const [client, due] of this.due) {
      if (due > now) continue;
      this.due.set(client, Number.POSITIVE_INFINITY);
      (client as unknown as pg.Client).connection.stream.destroy(
        new Error(`PostgreSQL did not answer within ${this.ms} ms`),
      );
    }
  }

  close(): void {
    clearInterval(this.ticker);
  }
}

/**
 * The connection settings of `connectionString` with TLS verified against `ca`. Not the
 * string plus pg's `ssl` option: pg lets any TLS parameter of the string replace that option
 * whole, so `?sslmode=require` would verify against the system's CAs alone and refuse a
 * server signed by a private one. A client certificate named in the string (sslcert,
 * sslkey) is kept.
 */
export function withCa(connectionString: string, ca: string): pg.PoolConfig {
  const { ssl, ...config } = parseIntoClientConfig(connectionString);
  if (ssl === false)
    throw new Error('the archive connection string says sslmode=disable, but a CA was given for TLS');
  const client = typeof ssl === 'object' ? { cert: ssl.cert, key: ssl.key } : {};
  return { ...config, ssl: { ...client, ca, rejectUnauthorized: true } };
}
