import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { locals } from '../request.ts';
import { CONSOLE_SCRIPT } from './console.ts';
import { docsPage } from './page.ts';

/** The renderer's files, from the swagger-ui-dist package: nothing is fetched from a CDN. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Resolved by path, not imported: importing the package would load its 1.7 MB bundle into the api.
const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Only this page's own script and the renderer's files run; the renderer sets inline
 * styles, and the try-it console calls this origin only.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GET /docs: the API reference rendered from GET /v1/openapi.json by Swagger UI (served
 * from npm, works offline), the quick start, and a console: a pasted key authorizes every
 * operation's "Try it out" and a quick-submit form that follows the job's events.
 */
export function docsRoutes(basePath = ''): Router {
  const r = Router();
  const page = docsPage(basePath);
  r.get('/docs', (_req, res) => {
    locals(res).route = '/docs';
    res.set('content-security-policy', CSP).type('html').send(page);
  });
  r.get('/docs/console.js', (_req, res) => {
    locals(res).route = '/docs/console.js';
    res.type('text/javascript; charset=utf-8').send(CONSOLE_SCRIPT);
  });
  r.get('/docs/assets/:name', (req, res, next) => {
    locals(res).route = '/docs/assets/:name';
    const name = req.params.name as string;
    const type = ASSETS[name];
    if (!type) return next();
    res.type(type).sendFile(join(assetDir, name), { maxAge: '1h' }, (err) => err && next(err));
  });
  return r;
}
