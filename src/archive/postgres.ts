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
    query_timeout: timeout * 2,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => o.onError?.(err));
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
      try {
        return await fn({
          query: async <R extends object>(text: string, params?: unknown[]) =>
            (await client.query(text, params)).rows as R[],
          exec: async (script: string) => {
            await client.query(script);
          },
        });
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
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
