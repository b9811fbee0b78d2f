import { Router } from 'express';
import type { Authenticator } from '../auth.ts';
import { locals } from '../request.ts';
import type { StreamHub } from './hub.ts';
import type { JobService } from './service.ts';

/** What EventSource waits before reconnecting after a dropped stream. */
const RETRY_MS = 2_000;

/**
 * GET /v1/jobs/{jobId}/events: Server-Sent Events. The job is looked up exactly as GET
 * /v1/jobs/{jobId} does (cache, then the store behind it), so the same errors apply; then
 * an `event: job` with the GET record on every change, until the terminal one ends the
 * stream. A client that resumes with `Last-Event-ID` gets the current record only if it
 * differs from what it had, and a 204 once it holds the terminal one (which tells
 * EventSource to stop reconnecting).
 */
export function eventRoutes(service: JobService, hub: StreamHub, auth: Authenticator): Router {
  const r = Router();
  r.get('/v1/jobs/:jobId/events', auth.require('check_status'), async (req, res) => {
    locals(res).route = '/v1/jobs/:jobId/events';
    const jobId = req.params.jobId as string;
    locals(res).jobId = jobId;
    const principal = locals(res).principal!;
    const job = await service.get(principal, jobId);
    const lastId = req.get('last-event-id');
    let opened = false;
    const stream = {
      account: principal.account.metadata.name ?? '',
      jobId,
      model: job.spec.model,
      lastId,
      authorized: () => auth.stillValid(principal),
      write: (chunk: string) => {
        if (!opened) {
          opened = true;
          res.status(200);
          res.set({
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache, no-transform',
            // ingress-nginx and other nginx proxies: pass each event on at once.
            'x-accel-buffering': 'no',
          });
          // In the first event's block, not a block of its own: SSE parsers that hand out every
          // block (httpx-sse) would give an event with no data first. A resume with nothing new
          // (a comment) needs none: the client kept the first connection's.
          if (!chunk.startsWith(':')) chunk = `retry: ${RETRY_MS}\n${chunk}`;
        }
        res.write(chunk);
      },
      end: () => {
        if (!opened) res.status(204);
        res.end();
      },
    };
    // From here on no await: the stream is registered before the cache can change again.
    if (hub.open(stream, job)) {
      if (!opened) stream.write(': resumed\n\n');
      res.on('close', () => hub.close(stream));
    }
  });
  return r;
}
