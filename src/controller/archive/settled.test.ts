import { describe, expect, it } from 'vitest';
import type { Account, GenerationJob } from '../../k8s/types.ts';
import { settled } from './settled.ts';

const job = (lease?: string) =>
  ({
    metadata: { name: 'j1' },
    spec: { account: 'a', model: 'm', input: {}, costMicroCents: 5, ...(lease ? { lease } : {}) },
  }) as GenerationJob;
const account = (status: Account['status']) =>
  ({ metadata: { name: 'a' }, spec: { plan: 'pro', grantedMicroCents: 100 }, status }) as Account;
const lease = { amount: 10, expiresAt: '2026-01-01T00:00:00Z' };

describe('settled', () => {
  it.each([
    ['a job with its reservation still held', job(), account({ reservations: { j1: 5 } }), false],
    ['a job whose reservation is settled', job(), account({ reservations: {} }), true],
    ['a job whose lease is still open', job('l1'), account({ leases: { l1: lease } }), false],
    ['a job whose lease has closed', job('l1'), account({ leases: {} }), true],
    ['a job of a deleted account', job('l1'), undefined, true],
  ])('%s → %s', (_what, j, a, want) => {
    expect(settled(j, a)).toBe(want);
  });
});
