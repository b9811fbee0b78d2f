import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

import type { TestTls } from '../../src/webhooks/test-tls.ts';

export { makeTestTls, type TestTls } from '../../src/webhooks/test-tls.ts';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** How the receiver answers the n-th request (0-based) to a path. */
export type Responder = (
  req: Received,
  n: number,
) => { status: number; headers?: Record<string, string> /** Answer this much later. */; delayMs?: number };

export interface Receiver {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Every request, in arrival order. */
  received: Received[];
  /** The requests to one path. */
  to(path: string): Received[];
  /** Sets how requests to `path` are answered (default: 200). */
  on(path: string, responder: Responder): void;
  close(): Promise<void>;
}

/** A real HTTPS webhook receiver on 127.0.0.1. */
export async function startReceiver(tls: TestTls): Promise<Receiver> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const entry: Received = {
        path,
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
        ),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const n = received.filter((r) => r.path === path).length;
      received.push(entry);
      const answer = responders.get(path)?.(entry, n) ?? { status: 200 };
      setTimeout(() => {
        if (!res.destroyed)
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    to: (path) => received.filter((r) => r.path === path),
    on: (path, responder) => responders.set(path, responder),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
