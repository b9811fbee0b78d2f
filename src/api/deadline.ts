import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.ts';
import { sendProblem } from './problem.ts';

export interface BodyDeadlines {
  /** A request body (JSON) must have arrived this long after its headers. */
  totalMs: number;
  /** An upload (`PUT /files/…`, up to a video's 100 MB) may take this long in all... */
  uploadTotalMs: number;
  /** ...as long as its bytes keep coming: none for this long ends it. */
  uploadIdleMs: number;
}

export const DEFAULT_BODY_DEADLINES: BodyDeadlines = {
  totalMs: 120_000,
  uploadTotalMs: 30 * 60_000,
  uploadIdleMs: 60_000,
};

/** How often a request still sending its body is looked at. */
const CHECK_EVERY_MS = 5_000;

/**
 * Deadlines for request bodies, in place of Node's `server.requestTimeout`: that one is
 * one deadline for every request (a slow client's 100 MB upload was cut at 120 s, which a
 * presigned URL valid for 15 minutes does not say) and answers with a bare status line. Here
 * a JSON body has 120 s; an upload may take 30 minutes while its bytes keep coming, and
 * ends after a minute without any. The answer is a 408 problem (`REQUEST_TIMEOUT`,
 * retryable) on a connection then closed, so the rest of the body is never read.
 */
export function bodyDeadlines(d: BodyDeadlines = DEFAULT_BODY_DEADLINES) {
  return (req: Request, res: Response, next: NextFunction) => {
    // A request without a body (no Content-Length above 0, no chunks) has nothing to wait for.
    const length = req.headers['content-length'];
    const body = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (req.complete || !body) return next();
    const upload = req.method === 'PUT' && req.path.startsWith('/files/');
    const started = Date.now();
    let bytes = req.socket.bytesRead;
    let movedAt = started;
    const timer = setInterval(
      () => {
        if (req.complete || res.headersSent) return stop();
        const now = Date.now();
        if (req.socket.bytesRead !== bytes) {
          bytes = req.socket.bytesRead;
          movedAt = now;
        }
        const why = upload
          ? now - movedAt >= d.uploadIdleMs
            ? `no bytes of the upload arrived for ${d.uploadIdleMs / 1000} s`
            : now - started >= d.uploadTotalMs
              ? `the upload took longer than ${d.uploadTotalMs / 60_000} minutes`
              : undefined
          : now - started >= d.totalMs
            ? `the request body did not arrive within ${d.totalMs / 1000} s`
            : undefined;
        if (why === undefined) return;
        stop();
        // What the handler still reads ends with the connection.
        res.on('finish', () => req.socket.destroy());
        res.setHeader('Connection', 'close');
        sendProblem(res, new AppError('REQUEST_TIMEOUT', `${why}; send it again`, { retryAfterSeconds: 1 }));
      },
      Math.min(CHECK_EVERY_MS, d.uploadIdleMs, d.totalMs),
    );
    const stop = () => clearInterval(timer);
    req.on('end', stop);
    res.on('close', stop);
    next();
  };
}
