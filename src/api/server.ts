import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { problemBody } from './problem.ts';

const HEADERS_TIMEOUT_MS = 66_000;

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting connections and waits for in-flight requests (up to the grace period). */
  close(graceMs?: number): Promise<void>;
}

/** Listens and wires graceful shutdown: on close, idle keep-alive sockets go at once, busy ones finish. */
export async function listen(app: Express, host: string, port: number, log: Logger): Promise<RunningServer> {
  // Node checks the headers' deadline every connectionsCheckingInterval (30 s by default), so
  // a 66 s deadline could cut at 96 s: checked every 2 s, it cuts at 66 to 68.
  const server = createServer({ connectionsCheckingInterval: 2_000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.keepAliveTimeout = 65_000;
  // Headers within a minute (a connection that trickles them is closed); bodies have their
  // own deadlines, by route (./deadline.ts), not one for every request.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = 0;
  // A client that sent `Expect: 100-continue` is answered by the app, not told at once to
  // send its body: whoever reads a body says 100 first (api/body.ts, blob/routes.ts), so a
  // request refused before (a key that is not valid, a bad signature) sends none.
  server.on('checkContinue', (req, res) => app(req, res));
  // Any other expectation is one the api does not know, and answers the request as if it
  // were not there (RFC 9110 10.1.1 allows either that or a 417): Node's own 417 would be a
  // bare status line, unlike every other answer.
  server.on('checkExpectation', (req, res) => app(req, res));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(err, socket, log),
  );
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

/**
 * Answers a request that Node's HTTP parser refused before Express saw it (a URL and headers
 * over the limit, bytes that are not HTTP) with a problem body like every other error;
 * Node's own answer is a bare status line. As Node does, nothing is written on a connection
 * whose current response has begun (a pipelined request), and a reset needs no answer.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const e =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError(
          'REQUEST_TIMEOUT',
          `the request's headers did not arrive within ${HEADERS_TIMEOUT_MS / 1000} s`,
        )
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError(
            'HEADERS_TOO_LARGE',
            `the request line and headers are over ${maxHeaderSize} bytes (a long URL counts); send long values in a JSON body`,
          )
        : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? new AppError('PAYLOAD_TOO_LARGE', 'the chunk extensions of the body are too large')
          : new AppError('MALFORMED_REQUEST', 'the request is not valid HTTP/1.1');
  const requestId = randomUUID();
  log.info(
    { requestId, code: e.code, parserError: err.code },
    'refused a request the HTTP parser could not read',
  );
  const problem = problemBody(e, requestId);
  const body = JSON.stringify(problem);
  socket.end(
    [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
      'Content-Type: application/problem+json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      ...(problem.retryable ? ['Retry-After: 1'] : []),
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
