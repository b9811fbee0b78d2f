import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from '../log.ts';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting connections and waits for in-flight requests (up to the grace period). */
  close(graceMs?: number): Promise<void>;
}

/** Listens and wires graceful shutdown: on close, idle keep-alive sockets go at once, busy ones finish. */
export async function listen(app: Express, host: string, port: number, log: Logger): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  log.info({ url }, 'listening');
  return {
    server,
    url,
    close: (graceMs = 20_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
