import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../metrics.ts';

/**
 * /healthz, /readyz, /metrics and /debug/state of a process without an Express app (the
 * controller). /debug/state is a read-only JSON view of what the process holds in memory
 * (docs/operations.md); `state` must be cheap and free of tenant data.
 */
export async function healthServer(o: {
  host: string;
  port: number;
  metrics: Metrics;
  /** Why the process cannot work now (caches not synced, apiserver away), or undefined. */
  notReady: () => string | undefined;
  beforeScrape?: () => void;
  state?: () => unknown;
}): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      const reason = o.notReady();
      res
        .writeHead(reason ? 503 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify(reason ? { status: 'not ready', reason } : { status: 'ready' }));
    } else if (path === '/metrics') {
      o.beforeScrape?.();
      const body = await o.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': o.metrics.registry.contentType }).end(body);
    } else if (path === '/debug/state' && o.state) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o.state(), null, 2));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"not found"}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `the controller's health and metrics port ${o.host}:${o.port} is in use; set GENJOBS_CONTROLLER_PORT to another (0: any free port)`,
            )
          : err,
      ),
    );
    server.listen(o.port, o.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${o.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
