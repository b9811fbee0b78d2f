import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Account, ApiKey } from '../k8s/types.ts';
import type { Logger } from '../log.ts';

/** Who is calling: set by the authentication middleware. */
export interface Principal {
  account: Account;
  key: ApiKey;
}

/**
 * Whether the caller's account owns a job or upload made for the account `account` at
 * `createdAt` (a creationTimestamp). Names are reused: a resource of this account's name
 * made before this account was is a deleted namesake's (its jobs' history outlives it in
 * the archive), not this account's. Timestamps of the apiserver have one format, so text
 * order is time order.
 */
export function owns(principal: Principal, account: string, createdAt: string | undefined): boolean {
  const { name, creationTimestamp } = principal.account.metadata;
  return account === name && (createdAt ?? '') >= (creationTimestamp ?? '');
}

/** What the middleware chain attaches to each response's locals. */
export interface Locals {
  requestId: string;
  log: Logger;
  principal?: Principal;
  /** The upload endpoints wrap every answer, errors included, with `success`. */
  wrapped?: boolean;
  /** Where the route reads the API key: a 401 names it in WWW-Authenticate. */
  credentialSource?: 'bearer' | 'x-api-key';
  /** Route template for metrics (low cardinality), e.g. /v1/jobs/:jobId. */
  route?: string;
  /** For the request's log line: the job it made or named. */
  jobId?: string;
  /**
   * For the log line: the code of a refusal, and the ApiKey resource of a refused key (not
   * `key`, a field the logger redacts wherever it appears, in case it holds a secret).
   */
  code?: string;
  apiKey?: string;
  /** The account of a refused key, when known (a revoked key's: the cache saw it before). */
  keyAccount?: string;
}

export function locals(res: Response): Locals {
  return res.locals as Locals;
}

/**
 * The route template of a request for its log line and metrics: the one its handler named,
 * else Express's matched route (authentication may refuse before the handler runs).
 */
export function routeOf(req: Request, res: Response): string | undefined {
  return locals(res).route ?? (req.route?.path as string | undefined);
}

const INCOMING_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id (the caller's x-request-id when it is sane, else a new
 * UUID), echoes it on the response and binds it to a child logger, so a log line, an
 * error body and a client's report can be matched at 3 a.m.
 *
 * Each request ends with one `request` line: at info for what changes something and for
 * every refusal or failure (status 400 and up), at debug for reads that succeed. Clients
 * poll: at thousands of status reads a second, a line each cost the api about a third of
 * its read throughput (writing them on two shared cores) and buried the lines that matter;
 * the request metrics count every read, and LOG_LEVEL=debug shows them.
 */
export function requestContext(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    const l = locals(res);
    l.requestId = requestId;
    l.log = log.child({ requestId });
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const read = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
      const level = read && res.statusCode < 400 ? 'debug' : 'info';
      if (!l.log.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      l.log[level](
        {
          method: req.method,
          path: req.path,
          route: routeOf(req, res),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          account: l.principal?.account.metadata.name ?? l.keyAccount,
          jobId: l.jobId,
          code: l.code,
          // The key's name (key-…), refused or not: what a leaked key did can be found.
          apiKey: l.apiKey ?? l.principal?.key.metadata.name,
          // The connection's other end: the client, or the proxy in front (whose access
          // log the request id finds); X-Forwarded-For is the client's word, not logged.
          peer: req.socket.remoteAddress,
        },
        'request',
      );
    });
    next();
  };
}
