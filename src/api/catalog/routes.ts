import { gzipSync } from 'node:zlib';
import { type Response, Router } from 'express';
import {
  type Catalog,
  getCatalogModel,
  getCatalogProvider,
  listApiModels,
  listCapabilityGroups,
  listCatalogProviders,
  listCategories,
  listProviderModels,
} from '../../catalog/index.ts';
import { listCatalogModelsJson } from '../../catalog/views.ts';
import type { Account } from '../../k8s/types.ts';
import type { Authenticator } from '../auth.ts';
import { parseBody } from '../body.ts';
import { locals } from '../request.ts';
import { CatalogFilterQuery } from './schemas.ts';

const Filter = CatalogFilterQuery;
const ProviderFilter = Filter.omit({ provider: true });

/** How long the API-key model listings may be reused (spec 4.13: 5 minutes). */
export const MODEL_LIST_TTL_MS = 5 * 60_000;

/**
 * The public catalog (4.7 to 4.12) and the API-key model listings (4.13, 4.14). The
 * listings are cached per account for five minutes, keyed also by the catalog and the
 * account's resourceVersion, so a catalog reload or an account change is never hidden.
 */
export function catalogRoutes(
  catalog: () => Catalog,
  auth: Authenticator,
  now: () => number = Date.now,
): Router {
  const r = Router();
  const listings = new Map<string, { at: number; catalog: Catalog; body: string }>();

  function cachedListing(res: Response, account: Account, key: string, build: () => unknown): void {
    const c = catalog();
    const id = `${account.metadata.name}\n${account.metadata.resourceVersion}\n${key}`;
    const hit = listings.get(id);
    let body = hit && hit.catalog === c && now() - hit.at < MODEL_LIST_TTL_MS ? hit.body : undefined;
    if (body === undefined) {
      body = JSON.stringify(build());
      if (listings.size > 10_000) listings.clear();
      listings.set(id, { at: now(), catalog: c, body });
    }
    res.setHeader('Cache-Control', `private, max-age=${MODEL_LIST_TTL_MS / 1000}`);
    res.type('application/json').send(body);
  }

  // The list is the largest answer (about 300 KB of JSON at 1,000 models) and depends only
  // on the catalog, the filter and the account fields a CatalogAccount names. Each such
  // answer is encoded once per catalog, and gzipped once for clients that accept it
  // (about 10x smaller), so a request costs a map look-up and a write.
  let encoded = { catalog: undefined as Catalog | undefined, bodies: new Map<string, Buffer>() };
  r.get('/v1/catalog/models', auth.optional(), (req, res) => {
    locals(res).route = '/v1/catalog/models';
    const filter = parseBody(Filter, { ...req.query });
    const c = catalog();
    const account = locals(res).principal?.account;
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (encoded.catalog !== c) encoded = { catalog: c, bodies: new Map() };
    const spec = account && [account.spec.segments, account.spec.allowedModels, account.spec.discount];
    const id = JSON.stringify([gzip, filter.category, filter.capability, filter.provider, spec]);
    let body = encoded.bodies.get(id);
    if (!body) {
      const json = Buffer.from(listCatalogModelsJson(c, account, filter));
      body = gzip ? gzipSync(json) : json;
      if (encoded.bodies.size >= 1_000) encoded.bodies.clear();
      encoded.bodies.set(id, body);
    }
    res.setHeader('Vary', 'Accept-Encoding, Authorization');
    if (account) res.setHeader('Cache-Control', 'private');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.type('application/json').send(body);
  });

  // Slugs contain slashes: /v1/catalog/models/<provider>/<model>[/<capability>]. Express has
  // already percent-decoded the parameter (once); decoding it again turned %25 into a 500.
  // The spec gives model detail no credential: a key personalizes it (visibility, prices, as
  // for the list), and a key that does not authenticate is ignored rather than refused.
  r.get(/^\/v1\/catalog\/models\/(.+)$/, auth.optional({ ignoreInvalid: true }), (req, res) => {
    locals(res).route = '/v1/catalog/models/:slug';
    const slug = (req.params as Record<string, string>)[0] ?? '';
    const account = locals(res).principal?.account;
    // An answer for a key (its visibility and discount) must not be served to anyone else
    // by a shared cache.
    res.setHeader('Vary', 'Authorization');
    if (account) res.setHeader('Cache-Control', 'private');
    res.json(getCatalogModel(catalog(), slug, account));
  });

  r.get('/v1/catalog/providers', (req, res) => {
    locals(res).route = '/v1/catalog/providers';
    res.json(listCatalogProviders(catalog(), undefined, parseBody(ProviderFilter, { ...req.query })));
  });

  r.get('/v1/catalog/providers/:id', (req, res) => {
    locals(res).route = '/v1/catalog/providers/:id';
    res.json(getCatalogProvider(catalog(), req.params.id as string));
  });

  r.get('/v1/catalog/capability-groups', (_req, res) => {
    locals(res).route = '/v1/catalog/capability-groups';
    res.json(listCapabilityGroups(catalog()));
  });

  r.get('/v1/catalog/categories', (_req, res) => {
    locals(res).route = '/v1/catalog/categories';
    res.json(listCategories(catalog()));
  });

  r.get('/v1/models', auth.require('list_models', 'x-api-key'), (req, res) => {
    locals(res).route = '/v1/models';
    const filter = parseBody(Filter, { ...req.query });
    const account = locals(res).principal!.account;
    cachedListing(res, account, JSON.stringify(filter), () => listApiModels(catalog(), account, filter));
  });

  r.get('/v1/providers/:providerId/models', auth.require('list_models', 'x-api-key'), (req, res) => {
    locals(res).route = '/v1/providers/:providerId/models';
    const filter = parseBody(ProviderFilter, { ...req.query });
    const account = locals(res).principal!.account;
    const id = req.params.providerId as string;
    cachedListing(res, account, `${id}\n${JSON.stringify(filter)}`, () =>
      listProviderModels(catalog(), id, account, filter),
    );
  });

  return r;
}
