import { gzipSync } from 'node:zlib';
import { type Response, Router } from 'express';
import { LRUCache } from 'lru-cache';
import {
  type Catalog,
  type CatalogAccount,
  getCatalogModel,
  getCatalogProvider,
  listApiModels,
  listCapabilityGroups,
  listCatalogProviders,
  listCategories,
  listProviderModels,
} from '../../catalog/index.ts';
import { listCatalogModelsJson } from '../../catalog/views.ts';
import type { Authenticator } from '../auth.ts';
import { parseQuery } from '../body.ts';
import { locals } from '../request.ts';
import { CatalogFilterQuery } from './schemas.ts';

const Filter = CatalogFilterQuery;
const ProviderFilter = Filter.omit({ provider: true });

/** How long clients may reuse the API-key model listings (spec 4.13: 5 minutes). */
export const MODEL_LIST_TTL_MS = 5 * 60_000;

/** What the encoded listings may hold together: a few dozen of the largest (1,000 models). */
const LISTINGS_MAX_BYTES = 32 * 2 ** 20;

/**
 * The catalog listings as sent, each encoded once. A listing is a function of the catalog,
 * the request's filter and the account fields that personalize it (a CatalogAccount's:
 * segments, allowed models, discount), so that is its key: not the account's name or its
 * resourceVersion, which every ledger write changes (a client that submitted and cancelled
 * in a loop added a 300 KB listing per turn). Bounded in bytes, least recently used out;
 * emptied when the catalog is replaced.
 */
export class Listings {
  private catalog: Catalog | undefined;
  private readonly bodies: LRUCache<string, Buffer>;

  constructor(maxBytes = LISTINGS_MAX_BYTES) {
    this.bodies = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (body, key) => body.length + key.length,
    });
  }

  /** Bytes held. */
  get bytes(): number {
    return this.bodies.calculatedSize;
  }

  get(c: Catalog, key: string, build: () => Buffer): Buffer {
    if (this.catalog !== c) {
      this.bodies.clear();
      this.catalog = c;
    }
    let body = this.bodies.get(key);
    if (!body) {
      body = build();
      this.bodies.set(key, body);
    }
    return body;
  }
}

/** The account fields a listing depends on (see {@link Listings}). */
export const personalization = (account: CatalogAccount | undefined) =>
  account && [account.spec.segments, account.spec.allowedModels, account.spec.discount];

/**
 * The public catalog (4.7 to 4.12) and the API-key model listings (4.13, 4.14). A catalog
 * reload or an account change shows at once; clients are told they may reuse the API-key
 * listings for five minutes.
 */
export function catalogRoutes(catalog: () => Catalog, auth: Authenticator): Router {
  const r = Router();
  const listings = new Listings();

  function cachedListing(res: Response, account: CatalogAccount, key: string, build: () => unknown): void {
    const id = JSON.stringify(['key', personalization(account), key]);
    const body = listings.get(catalog(), id, () => Buffer.from(JSON.stringify(build())));
    res.setHeader('Cache-Control', `private, max-age=${MODEL_LIST_TTL_MS / 1000}`);
    // Each key's listing is its own (visibility, prices): a cache keeps one per key, sent
    // either way.
    res.setHeader('Vary', 'x-api-key, Authorization');
    res.type('application/json').send(body);
  }

  // The list is the largest answer (about 300 KB of JSON at 1,000 models), encoded once and
  // gzipped once for clients that accept it (about 10x smaller), so a request costs a map
  // look-up and a write.
  r.get('/v1/catalog/models', auth.optional(), (req, res) => {
    locals(res).route = '/v1/catalog/models';
    const filter = parseQuery(Filter, req.query);
    const c = catalog();
    const account = locals(res).principal?.account;
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    const id = JSON.stringify([
      gzip,
      filter.category,
      filter.capability,
      filter.provider,
      personalization(account),
    ]);
    const body = listings.get(c, id, () => {
      const json = Buffer.from(listCatalogModelsJson(c, account, filter));
      return gzip ? gzipSync(json) : json;
    });
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
    res.json(listCatalogProviders(catalog(), undefined, parseQuery(ProviderFilter, req.query)));
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
    const filter = parseQuery(Filter, req.query);
    const account = locals(res).principal!.account;
    cachedListing(res, account, JSON.stringify(filter), () => listApiModels(catalog(), account, filter));
  });

  r.get('/v1/providers/:providerId/models', auth.require('list_models', 'x-api-key'), (req, res) => {
    locals(res).route = '/v1/providers/:providerId/models';
    const filter = parseQuery(ProviderFilter, req.query);
    const account = locals(res).principal!.account;
    const id = req.params.providerId as string;
    cachedListing(res, account, `${id}\n${JSON.stringify(filter)}`, () =>
      listProviderModels(catalog(), id, account, filter),
    );
  });

  return r;
}
