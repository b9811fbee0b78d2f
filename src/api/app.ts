import { gzipSync } from 'node:zlib';
import express, { type Router } from 'express';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { refuseMethod } from '../method-not-allowed.ts';
import type { Metrics } from '../metrics.ts';
import { type BodyDeadlines, bodyDeadlines } from './deadline.ts';
import { allowedMethods, openApiDocument } from './openapi.ts';
import { problemHandler } from './problem.ts';
import { locals, requestContext, routeOf } from './request.ts';
import { markWrappedUploadRequests } from './uploads/wrapped.ts';

export interface AppOptions {
  log: Logger;
  metrics: Metrics;
  /** Why the api cannot serve now (caches not synced, apiserver away), or undefined when it can. */
  notReady: () => string | undefined;
  /** Routers that must see the raw body stream (file uploads): mounted before JSON parsing. */
  rawRouters?: Array<[string, Router]>;
  routers: Router[];
  /** How long request bodies may take (default: DEFAULT_BODY_DEADLINES). */
  bodyDeadlines?: BodyDeadlines;
  /** The path the api is published under ({@link publicBasePath}): the OpenAPI document's server. */
  basePath?: string;
}

/**
 * The api's Express application: request ids and logs, metrics, the resource routers (which
 * read JSON bodies once the caller is authenticated: Authenticator.require), and one error
 * handler that answers problem+json.
 */
export function createApp(o: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(o.log));
  app.use(bodyDeadlines(o.bodyDeadlines));
  app.use((req, res, next) => {
    const end = o.metrics.httpDuration.startTimer();
    res.on('finish', () =>
      end({
        route: routeOf(req, res) ?? 'unmatched',
        method: req.method,
        status: String(res.statusCode),
      }),
    );
    next();
  });
  app.get('/healthz', (_req, res) => {
    locals(res).route = '/healthz';
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    locals(res).route = '/readyz';
    const reason = o.notReady();
    res.status(reason ? 503 : 200).json(reason ? { status: 'not ready', reason } : { status: 'ready' });
  });
  app.get('/metrics', async (_req, res) => {
    locals(res).route = '/metrics';
    res.type(o.metrics.registry.contentType).send(await o.metrics.registry.metrics());
  });
  // About 100 KB of JSON, encoded and gzipped (about a tenth) once.
  let openapi: { json: Buffer; gzip: Buffer } | undefined;
  app.get('/v1/openapi.json', (req, res) => {
    locals(res).route = '/v1/openapi.json';
    if (!openapi) {
      const json = Buffer.from(JSON.stringify(openApiDocument({ basePath: o.basePath })));
      openapi = { json, gzip: gzipSync(json) };
    }
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.type('application/json').send(gzip ? openapi.gzip : openapi.json);
  });
  app.use(markWrappedUploadRequests);
  app.use(methodNotAllowed);
  for (const [path, router] of o.rawRouters ?? []) {
    app.use(
      path,
      (_req, res, next) => {
        locals(res).route = `${path}/*`;
        next();
      },
      router,
    );
  }
  for (const router of o.routers) app.use(router);
  app.use((req, _res, next) => next(new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`)));
  app.use(problemHandler());
  return app;
}

/**
 * A method the document does not have for a path it has: 405 with `Allow` (RFC 9110
 * 15.5.6), so a client learns it used the wrong method, not a wrong address. Decided
 * before routing and authentication, from the document itself, so the answer and the
 * document cannot disagree (GET /v1/jobs/submit is a 405, not a look-up of job "submit").
 * OPTIONS on such a path answers 204 with the same `Allow`.
 */
function methodNotAllowed(req: express.Request, res: express.Response, next: express.NextFunction): void {
  // The document is not among its own paths, but answers like them.
  const allowed = req.path === '/v1/openapi.json' ? ['GET', 'HEAD'] : allowedMethods(req.path);
  if (!allowed || (allowed.includes(req.method) && req.method !== 'OPTIONS')) {
    next();
    return;
  }
  refuseMethod(req, res, next, allowed);
}
