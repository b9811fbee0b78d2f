import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away certificate authority and a server certificate for 127.0.0.1 and localhost. */
export interface TestTls {
  ca: string;
  key: string;
  cert: string;
}

/** Makes a CA and a server certificate it signed, with openssl, as an operator would. */
export async function makeTestTls(): Promise<TestTls> {
  const dir = await mkdtemp(join(tmpdir(), 'genjobs-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    run(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=genjobs test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    await writeFile(
      join(dir, 'server.ext'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
    );
    run(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '1',
      '-extfile',
      'server.ext',
    );
    const read = (f: string) => readFile(join(dir, f), 'utf8');
    return { ca: await read('ca.crt'), key: await read('server.key'), cert: await read('server.crt') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** How the receiver answers the n-th request (0-based) to a path. */
export type Responder = (req: Received, n: number) => { status: number; headers?: Record<string, string> };

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
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
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
