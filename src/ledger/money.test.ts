import { describe, expect, it } from 'vitest';
import { Informer } from '../k8s/informer.ts';
import { type Account, API_VERSION, type GenerationJob } from '../k8s/types.ts';
import { silentLogger } from '../log.ts';
import { Money } from './money.ts';

/** A job cache that has not seen any job yet (never started: nothing is listed). */
const emptyCache = () =>
  new Informer<GenerationJob>({ http: {} } as never, {
    path: '/apis/genjobs.io/v1alpha1/generationjobs',
    list: async () => ({ items: [] }) as never,
    log: silentLogger(),
  });

const job = (name: string, cost: number, lease = 'l-1'): GenerationJob => ({
  apiVersion: API_VERSION,
  kind: 'GenerationJob',
  metadata: { name, creationTimestamp: '2026-11-26T03:00:00Z' },
  spec: { account: 'acme', model: 'm', version: 'v1', input: {}, costMicroCents: cost, lease },
  status: { phase: 'cancelled' },
});

const account = (amount: number): Account => ({
  apiVersion: API_VERSION,
  kind: 'Account',
  metadata: { name: 'acme' },
  spec: { plan: 'pro', grantedMicroCents: 10_000_000 },
  status: { leases: { 'l-1': { amount, expiresAt: '2026-11-26T03:00:10Z' } } },
});

describe('Money', () => {
  it('finds the lease that pays for a job its cache does not show yet (just made: a cancel right after the submit)', () => {
    const money = new Money(emptyCache(), () => account(134_000));
    expect(money.holding(job('j-1', 134_000))).toBe('lease');
  });

  it('still says none for such a job that its lease cannot pay for, or whose lease it does not know', () => {
    expect(new Money(emptyCache(), () => account(100_000)).holding(job('j-1', 134_000))).toBe('none');
    expect(new Money(emptyCache(), () => account(134_000)).holding(job('j-1', 134_000, 'l-2'))).toBe('none');
  });
});
