import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { apiKeyName, generateKey, hashKey } from '../accounts/keys.ts';
import { AppError } from '../errors.ts';
import type { Listener } from '../k8s/informer.ts';
import type { CustomResources } from '../k8s/resources.ts';
import type { Account, ApiKey } from '../k8s/types.ts';
import { Authenticator } from './auth.ts';

const account = { metadata: { name: 'acme' }, spec: { plan: 'pro' } } as unknown as Account;
const apiKeyFor = (key: string) =>
  ({
    metadata: { name: apiKeyName(hashKey(key)) },
    spec: { account: 'acme', keyHash: hashKey(key), scopes: ['submit_job'] },
  }) as unknown as ApiKey;

/** An authenticator whose cache knows nothing yet and whose apiserver knows `stored`. */
function authenticator(stored: ApiKey[], now: () => number) {
  let gets = 0;
  const listeners: Listener<ApiKey>[] = [];
  const apiKeys = {
    get: async (name: string) => {
      gets++;
      return stored.find((k) => k.metadata.name === name);
    },
  } as unknown as CustomResources<ApiKey>;
  const auth = new Authenticator({
    apiKeys,
    accounts: { get: async () => account } as unknown as CustomResources<Account>,
    cachedKey: () => undefined,
    cachedAccount: () => account,
    missLookupsPerSecond: 5,
    keyEvents: { on: (l: Listener<ApiKey>) => void listeners.push(l) },
    now,
  });
  const event = (type: 'add' | 'delete', key: ApiKey) => {
    for (const l of listeners) l(type, key);
  };
  return { auth, gets: () => gets, event };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.code : String(err)),
  );

describe('Authenticator, keys the cache has not seen', () => {
  it('looks them up at a bounded rate; past it a new key is told to retry, not that it is invalid', async () => {
    let now = 1_000_000;
    const fresh = generateKey();
    const { auth, gets } = authenticator([apiKeyFor(fresh)], () => now);
    const madeUp = await Promise.all(
      Array.from({ length: 5 }, () => codeOf(auth.authenticate(generateKey()))),
    );
    expect(madeUp).toEqual(Array(5).fill('INVALID_API_KEY'));
    // A 429 (retryable, and no 5xx for an alert to count), not a 503 nor a 401.
    expect(await codeOf(auth.authenticate(fresh))).toBe('RATE_LIMITED');
    expect(gets()).toBe(5);
    now += 1_000;
    expect(await codeOf(auth.authenticate(fresh))).toBe('ok');
  });

  it('refuses a key known gone (not found once, or deleted from the cache) with no look-up', async () => {
    let now = 1_000_000;
    const revoked = generateKey();
    const { auth, gets, event } = authenticator([], () => now);
    const typo = generateKey();
    expect(await codeOf(auth.authenticate(typo))).toBe('INVALID_API_KEY');
    expect(gets()).toBe(1);
    // The revoked key's deletion, as the cache tells it.
    event('delete', apiKeyFor(revoked));
    for (let i = 0; i < 50; i++) {
      expect(await codeOf(auth.authenticate(typo))).toBe('INVALID_API_KEY');
      expect(await codeOf(auth.authenticate(revoked))).toBe('INVALID_API_KEY');
    }
    expect(gets()).toBe(1);
    // The refusal's log line says whose the revoked key was (the typo's: nobody's).
    const logged = async (key: string) => {
      const res = { locals: {} } as unknown as Response;
      const req = { headersDistinct: { authorization: [`Bearer ${key}`] } } as unknown as Request;
      await expect(auth.require(undefined)(req, res, () => {})).rejects.toMatchObject({
        code: 'INVALID_API_KEY',
      });
      return res.locals as { apiKey?: string; keyAccount?: string };
    };
    expect(await logged(revoked)).toEqual({
      apiKey: apiKeyName(hashKey(revoked)),
      keyAccount: 'acme',
      credentialSource: 'bearer',
    });
    expect((await logged(typo)).keyAccount).toBeUndefined();
    // The look-ups left are still there for a key created a moment ago.
    now += 1_000;
    expect(await codeOf(auth.authenticate(generateKey()))).toBe('INVALID_API_KEY');
    expect(gets()).toBe(2);
  });
});
