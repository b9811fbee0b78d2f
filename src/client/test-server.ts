// A scripted HTTP server for the client's tests: the service's answers the real one cannot
// be made to give on demand (a 503 then a 409, a stream that goes silent). Not used outside tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const servers: Array<ReturnType<typeof createServer>> = [];

/** A real local server answering each request with the next entry of `answers` (then 500); records the requests. */
export async function scripted(answers: Array<(res: ServerResponse) => void>) {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    (answers.shift() ?? ((r) => r.writeHead(500).end()))(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Closes every server {@link scripted} opened (for afterEach). */
export function closeServers(): void {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
}

/** An answer: the service's problem+json for `code`. */
export const problem =
  (status: number, code: string, retryable: boolean, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res
      .writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': 'req-1', ...headers })
      .end(JSON.stringify({ status, code, retryable, requestId: 'req-1', detail: `${code} happened` }));
