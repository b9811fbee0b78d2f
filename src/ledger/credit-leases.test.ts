import { describe, expect, it, vi } from 'vitest';
import type { CustomResources } from '../k8s/resources.ts';
import type { Account } from '../k8s/types.ts';
import { CreditLeases } from './credit-leases.ts';
import { Ledger } from './ledger.ts';
import { imbalance } from './ops.ts';

/** One Account held in memory with the apiserver's compare-and-swap, counting writes. */
function store(granted: number) {
  let account: Account = {
    apiVersion: 'genjobs.io/v1alpha1',
    kind: 'Account',
    metadata: { name: 'acme', resourceVersion: '1' },
    spec: { plan: 'pro', grantedMicroCents: granted },
  };
  const s = {
    writes: 0,
    get account() {
      return account;
    },
    accounts: {
      get: async () => structuredClone(account),
      updateStatus: async (a: Account) => {
        await new Promise((r) => setTimeout(r, 5));
        if (a.metadata.resourceVersion !== account.metadata.resourceVersion)
          throw Object.assign(new Error('conflict'), { code: 409, body: '{"reason":"Conflict"}' });
        s.writes++;
        account = {
          ...a,
          metadata: { ...a.metadata, resourceVersion: String(Number(a.metadata.resourceVersion) + 1) },
        };
        return structuredClone(account);
      },
    } as unknown as CustomResources<Account>,
  };
  return s;
}

const leasesOn = (s: ReturnType<typeof store>, termMs = 60_000) =>
  new CreditLeases({ ledger: new Ledger({ accounts: s.accounts }), termMs });

describe('CreditLeases', () => {
  it('submits waiting for one lease share its write; later ones draw from the headroom without writing', async () => {
    const s = store(100_000_000);
    const leases = leasesOn(s);
    const first = await Promise.all(Array.from({ length: 20 }, () => leases.draw('acme', 1_000)));
    expect(s.writes).toBeLessThanOrEqual(2);
    for (const d of first) d.done('created');
    const writes = s.writes;
    // A second's worth of submits is headroom for the next lease: a burst of the same size costs about one write.
    const second = await Promise.all(Array.from({ length: 20 }, () => leases.draw('acme', 1_000)));
    for (const d of second) d.done('created');
    expect(s.writes - writes).toBeLessThanOrEqual(2);
    expect(imbalance(s.account.status)).toBe(0);
  });

  it('a low balance is leased only as needed, and refused with 402 beyond it', async () => {
    const s = store(2_500);
    const leases = leasesOn(s);
    const a = await leases.draw('acme', 1_000);
    expect(s.account.status?.balanceMicroCents).toBe(1_500);
    const b = await leases.draw('acme', 1_000);
    await expect(leases.draw('acme', 1_000)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    a.done('created');
    b.done('absent'); // refused by the apiserver: its money may be drawn again
    const c = await leases.draw('acme', 1_000);
    c.done('created');
    expect(imbalance(s.account.status)).toBe(0);
  });

  it("a large job after a small one draws on the small one's unused lease too: no 402 the account could pay", async () => {
    // The trial's figures: 4,500,000 granted, a 134,000 job, then a 3,600,000 one.
    const s = store(4_500_000);
    const leases = leasesOn(s);
    const small = await leases.draw('acme', 134_000);
    small.done('created');
    // The small job's lease took eight of it (1,072,000): the balance alone is short.
    expect(s.account.status?.balanceMicroCents).toBeLessThan(3_600_000);
    const large = await leases.draw('acme', 3_600_000);
    large.done('created');
    expect(imbalance(s.account.status)).toBe(0);
    // What is left is short of another large job: that one is a 402.
    await expect(leases.draw('acme', 3_600_000)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(imbalance(s.account.status)).toBe(0);
  });

  it('a submit whose every new lease has run out on arrival is told to retry, not that it is poor', async () => {
    const s = store(100_000_000);
    // Each look at the clock is two seconds on: a lease write slower than the one-second term.
    let clock = 0;
    const leases = new CreditLeases({
      ledger: new Ledger({ accounts: s.accounts }),
      termMs: 1_000,
      now: () => (clock += 2_000),
    });
    await expect(leases.draw('acme', 1_000)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // Every lease it took goes back whole.
    await vi.waitFor(() => expect(s.account.status?.balanceMicroCents).toBe(100_000_000));
    expect(imbalance(s.account.status)).toBe(0);
  });

  it('at the end of its term a lease gives back what it did not pay for, once no create is in flight', async () => {
    // A balance too low for headroom: each lease is what is asked.
    const s = store(10_000);
    const leases = leasesOn(s, 50);
    const drawn = await leases.draw('acme', 1_000);
    await new Promise((r) => setTimeout(r, 120));
    // Its create still in flight: the lease stays whole.
    const [id, lease] = Object.entries(s.account.status?.leases ?? {})[0]!;
    expect(lease.amount).toBe(1_000);
    drawn.done('unknown'); // it may exist: it stays paid for
    await new Promise((r) => setTimeout(r, 50));
    expect(s.account.status?.leases?.[id]?.amount).toBe(1_000);
    expect(imbalance(s.account.status)).toBe(0);
    // An absent create on a lease that drew nothing else: the whole lease goes back.
    const lone = await leases.draw('acme', 5_000);
    lone.done('absent');
    // Given back when its term ends: waited for, not slept on (timers run late on a busy machine).
    await vi.waitFor(() => expect(Object.keys(s.account.status?.leases ?? {})).toEqual([id]), {
      timeout: 5_000,
      interval: 10,
    });
    expect(s.account.status?.balanceMicroCents).toBe(9_000);
    expect(imbalance(s.account.status)).toBe(0);
  });
});
