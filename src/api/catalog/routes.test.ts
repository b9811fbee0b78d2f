import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../catalog/index.ts';
import type { Account } from '../../k8s/types.ts';
import { Listings, personalization } from './routes.ts';

const account = (rv: string, balance: number, discount?: number): Account => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'Account',
  metadata: { name: 'acme', resourceVersion: rv },
  spec: {
    plan: 'pro',
    grantedMicroCents: 0,
    segments: ['beta'],
    ...(discount !== undefined ? { discount: { type: 'volume', percentage: discount } } : {}),
  },
  status: { balanceMicroCents: balance },
});

describe('Listings', () => {
  it('keys a listing by what personalizes it, not by the account version every ledger write makes', () => {
    const key = (a: Account) => JSON.stringify(personalization(a));
    expect(key(account('1', 100))).toBe(key(account('2', 50)));
    expect(key(account('3', 50, 10))).not.toBe(key(account('2', 50)));
  });

  it('builds a listing once per catalog, and holds no more than its bytes', () => {
    const listings = new Listings(10_000);
    const catalog = {} as Catalog;
    let built = 0;
    const build = () => {
      built++;
      return Buffer.alloc(1_000);
    };
    listings.get(catalog, 'a', build);
    listings.get(catalog, 'a', build);
    expect(built).toBe(1);
    for (let i = 0; i < 100; i++) listings.get(catalog, `k${i}`, build);
    expect(listings.bytes).toBeLessThanOrEqual(10_000);
    expect(listings.bytes).toBeGreaterThan(5_000);
    // The latest are kept; a new catalog starts afresh.
    listings.get(catalog, 'k99', build);
    expect(built).toBe(101);
    listings.get({} as Catalog, 'k99', build);
    expect(built).toBe(102);
  });
});
