import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Sends `100 Continue` to a client that waits for it (`Expect: 100-continue`) before it sends
 * the body about to be read. Node's automatic 100 is off in the api (api/server.ts): whoever
 * reads a body (the JSON reader, the /files PUT) calls this once the request may go on.
 */
export function continueIfExpected(req: IncomingMessage, res: ServerResponse): void {
  if (/\b100-continue\b/i.test(req.headers.expect ?? '') && !res.headersSent) res.writeContinue();
}
