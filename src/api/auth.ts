import type { NextFunction, Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { apiKeyName, hashKey, KEY_PATTERN, sameHash } from '../accounts/keys.ts';
import { AppError } from '../errors.ts';
import { eraseMode } from '../jobs/labels.ts';
import type { Informer } from '../k8s/informer.ts';
import type { CustomResources } from '../k8s/resources.ts';
import type { Account, ApiKey, Scope } from '../k8s/types.ts';
import { knownError } from './problem.ts';
import { locals, type Principal } from './request.ts';

/** Where a credential is read from: the spec uses a Bearer token everywhere but 4.13/4.14. */
export type CredentialSource = 'bearer' | 'x-api-key';

export interface AuthenticatorOptions {
  apiKeys: CustomResources<ApiKey>;
  accounts: CustomResources<Account>;
  /** Informer look-ups: an ApiKey by name, an Account by name. */
  cachedKey: (name: string) => ApiKey | undefined;
  cachedAccount: (name: string) => Account | undefined;
  now?: () => number;
  /** Direct apiserver look-ups allowed per second for keys the cache has not seen yet. */
  missLookupsPerSecond?: number;
  /** The ApiKey cache's events: a key deleted (revoked) is known gone without a look-up. */
  keyEvents?: Pick<Informer<ApiKey>, 'on'>;
  /**
   * Per-account limits, applied once the caller is known (api/limits): throws the refusal
   * (429) when the request goes over one.
   */
  limit?: (principal: Principal, req: Request) => void;
  /**
   * Reads the request's body (api/body.ts), called by `require` once the caller is known and
   * may call the route, before the limits (the upload limits read the body).
   */
  readBody?: (req: Request, res: Response) => Promise<void>;
}

/** Names of keys known not to exist, remembered (the most recent ones) so a refused key costs no look-up. */
const GONE_KEYS_REMEMBERED = 10_000;

/**
 * Authenticates API keys against ApiKey resources. A key is hashed once and found by
 * name in the informer cache; on a miss (a key created a moment ago) a rate-limited GET
 * to the apiserver, so a burst of random keys cannot turn into a burst of apiserver reads.
 * Revoked (deleted), disabled and expired keys stop working as soon as the cache sees it.
 * A key's name is its hash, so one that was revoked, or that a look-up did not find, never
 * comes to exist: it is remembered as gone and refused (401) with no look-up, however
 * often a client that was not told sends it again.
 */
export class Authenticator {
  private readonly opts: AuthenticatorOptions;
  private tokens: number;
  private refilledAt: number;
  /** Keys known gone, by name: the account a revoked key was of ('' when not known). */
  private readonly gone = new LRUCache<string, string>({ max: GONE_KEYS_REMEMBERED });

  constructor(options: AuthenticatorOptions) {
    this.opts = options;
    this.tokens = options.missLookupsPerSecond ?? 20;
    this.refilledAt = this.now();
    options.keyEvents?.on((type, key) => {
      const name = key.metadata?.name;
      if (!name) return;
      if (type === 'delete') this.gone.set(name, key.spec?.account ?? '');
      else this.gone.delete(name);
    });
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** Middleware: require a key with the scope (or any valid key when scope is undefined). */
  require(scope: Scope | undefined, source: CredentialSource = 'bearer') {
    return async (req: Request, res: Response, next: NextFunction) => {
      locals(res).credentialSource = source;
      const key = credential(req, source);
      if (key === undefined) {
        const where =
          source === 'bearer'
            ? 'an Authorization: Bearer <API key> header'
            : 'an x-api-key header (or Authorization: Bearer <API key>)';
        throw new AppError('UNAUTHENTICATED', `this endpoint needs ${where}`);
      }
      let principal: Principal;
      try {
        principal = await this.authenticate(key);
      } catch (err) {
        // The log line names the key refused (its resource, from the hash: never the key)
        // and, for a revoked one, whose it was: which tenant still calls with it.
        if (KEY_PATTERN.test(key)) {
          const name = apiKeyName(hashKey(key));
          locals(res).apiKey = name;
          locals(res).keyAccount = this.gone.get(name) || undefined;
        }
        throw err;
      }
      locals(res).principal = principal;
      if (scope && !principal.key.spec.scopes.includes(scope)) {
        throw new AppError('INSUFFICIENT_SCOPE', `this API key lacks the ${scope} scope`);
      }
      await this.opts.readBody?.(req, res);
      this.opts.limit?.(principal, req);
      next();
    };
  }

  /**
   * Middleware: authenticate when a Bearer token is present; an invalid one is still a 401.
   * With `ignoreInvalid`, for an endpoint whose credential is "none" (the spec's model
   * detail): a token that authenticates personalizes the answer, one that does not (any
   * header, key or look-up that fails) is ignored and the caller answered as anonymous.
   */
  optional(options: { ignoreInvalid?: boolean } = {}) {
    return async (req: Request, res: Response, next: NextFunction) => {
      let principal: Principal | undefined;
      try {
        const key = credential(req, 'bearer');
        if (key !== undefined) principal = await this.authenticate(key);
      } catch (err) {
        // A bug still surfaces; a refused key or an apiserver that cannot look it up does not.
        if (!(options.ignoreInvalid && knownError(err))) throw err;
      }
      if (principal) {
        locals(res).principal = principal;
        this.opts.limit?.(principal, req);
      }
      next();
    };
  }

  async authenticate(key: string): Promise<Principal> {
    if (!KEY_PATTERN.test(key)) throw new AppError('INVALID_API_KEY', 'the API key is malformed');
    const hash = hashKey(key);
    const name = apiKeyName(hash);
    let apiKey = this.opts.cachedKey(name);
    if (!apiKey && this.gone.has(name)) throw new AppError('INVALID_API_KEY', 'the API key is not valid');
    if (!apiKey) {
      // A key the cache has not seen may be a moment old: when look-ups are used up (by a
      // flood of made-up keys, say), its owner is told to retry, not that it is invalid;
      // a 429, not a 503: this api is well, it sheds look-ups of keys it does not know.
      if (!this.takeToken()) {
        throw new AppError(
          'RATE_LIMITED',
          'too many look-ups of API keys this api has not seen yet; retry in a second',
          { retryAfterSeconds: 1 },
        );
      }
      apiKey = await this.opts.apiKeys.get(name);
      if (!apiKey) this.gone.set(name, '');
    }
    const refused = this.refusal(apiKey, hash);
    if (!apiKey || refused) throw new AppError('INVALID_API_KEY', refused ?? 'the API key is not valid');
    const accountName = apiKey.spec.account;
    const account = this.opts.cachedAccount(accountName) ?? (await this.opts.accounts.get(accountName));
    if (!account || !ownedBy(apiKey, account))
      throw new AppError('INVALID_API_KEY', 'the API key belongs to no account');
    if (eraseMode(account)) throw new AppError('INVALID_API_KEY', "the API key's account is being deleted");
    return { account, key: apiKey };
  }

  /**
   * Whether a principal authenticated earlier still would be, from the caches alone: a
   * long-lived answer (an event stream) ends when its key is revoked, disabled or expires,
   * or its account is deleted (or being deleted). A key or account the cache does not show counts as gone; a
   * client still entitled reconnects and is authenticated afresh.
   */
  stillValid(principal: Principal): boolean {
    const key = this.opts.cachedKey(principal.key.metadata.name ?? '');
    if (!key || key.metadata.uid !== principal.key.metadata.uid) return false;
    if (this.refusal(key, key.spec.keyHash)) return false;
    const account = this.opts.cachedAccount(principal.account.metadata.name ?? '');
    return (
      account !== undefined && account.metadata.uid === principal.account.metadata.uid && !eraseMode(account)
    );
  }

  /** Why this key, found for this hash, does not authenticate; undefined when it does. */
  private refusal(apiKey: ApiKey | undefined, hash: string): string | undefined {
    if (!apiKey || !sameHash(apiKey.spec.keyHash, hash)) return 'the API key is not valid';
    if (apiKey.spec.disabled) return 'the API key is disabled';
    if (apiKey.spec.expiresAt && Date.parse(apiKey.spec.expiresAt) <= this.now())
      return 'the API key has expired';
    return undefined;
  }

  private takeToken(): boolean {
    const rate = this.opts.missLookupsPerSecond ?? 20;
    const now = this.now();
    // A clock stepped back refills nothing (not a negative amount: no look-ups for as long as the step).
    this.tokens = Math.min(rate, this.tokens + (Math.max(0, now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * Whether the key was made for this account, not for a deleted one of the same name: a key
 * names its Account's uid (keys made before that did not, and name only the account).
 */
function ownedBy(key: ApiKey, account: Account): boolean {
  const owner = key.metadata.ownerReferences?.find((o) => o.kind === 'Account');
  return !owner || owner.uid === account.metadata.uid;
}

/**
 * The key a request sends. The x-api-key endpoints (the spec's model listings) take a Bearer
 * key too, so a client made from the OpenAPI document with one way of sending its key reaches
 * every endpoint (and Swagger UI, authorized both ways, sends both). Two different keys are
 * refused, as two of one header are.
 */
function credential(req: Request, source: CredentialSource): string | undefined {
  if (source === 'bearer') return bearer(req);
  const apiKey = single(req, 'x-api-key');
  if (apiKey === undefined) return bearer(req);
  const alsoBearer = bearer(req);
  if (alsoBearer !== undefined && alsoBearer !== apiKey)
    throw new AppError('UNAUTHENTICATED', 'x-api-key and Authorization name two different keys; send one');
  return apiKey;
}

function bearer(req: Request): string | undefined {
  const header = single(req, 'Authorization');
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new AppError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <API key>"');
  return m[1];
}

/** A header's one value, trimmed; undefined when absent or empty. */
function single(req: Request, name: string): string | undefined {
  // Node keeps the first of several Authorization headers (and joins x-api-key's); a proxy
  // may read the last, and log or limit another account than the one served. Two
  // credentials are none.
  const values = req.headersDistinct[name.toLowerCase()] ?? [];
  if (values.length > 1)
    throw new AppError('UNAUTHENTICATED', `send one ${name} header, not ${values.length}`);
  return values[0]?.trim() || undefined;
}
