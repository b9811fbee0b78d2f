import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { guardedLookup, LOOPBACK_RANGES, refusalReason, type TargetPolicy } from './address.ts';

describe('webhook target addresses', () => {
  it.each([
    ['93.184.216.34', undefined],
    ['8.8.8.8', undefined],
    ['2606:4700:4700::1111', undefined],
    ['127.0.0.1', 'loopback address 127.0.0.1 is not public'],
    ['127.255.0.9', 'loopback address 127.255.0.9 is not public'],
    ['::1', 'loopback address ::1 is not public'],
    ['::ffff:127.0.0.1', 'loopback address 127.0.0.1 is not public'],
    ['::ffff:10.1.2.3', 'private address 10.1.2.3 is not public'],
    ['10.0.0.1', 'private address 10.0.0.1 is not public'],
    ['172.16.0.1', 'private address 172.16.0.1 is not public'],
    ['172.31.255.255', 'private address 172.31.255.255 is not public'],
    ['192.168.1.1', 'private address 192.168.1.1 is not public'],
    ['169.254.1.1', 'linkLocal address 169.254.1.1 is not public'],
    ['fe80::1', 'linkLocal address fe80::1 is not public'],
    ['100.64.0.1', 'carrierGradeNat address 100.64.0.1 is not public'],
    ['fc00::1', 'uniqueLocal address fc00::1 is not public'],
    ['fd12:3456::1', 'uniqueLocal address fd12:3456::1 is not public'],
    ['0.0.0.0', 'unspecified address 0.0.0.0 is never allowed'],
    ['0.1.2.3', 'unspecified address 0.1.2.3 is never allowed'],
    ['::', 'unspecified address :: is never allowed'],
    ['224.0.0.1', 'multicast address 224.0.0.1 is never allowed'],
    ['ff02::1', 'multicast address ff02::1 is never allowed'],
    ['255.255.255.255', 'broadcast address 255.255.255.255 is never allowed'],
    ['169.254.169.254', 'linkLocal address 169.254.169.254 is never allowed'],
    ['fd00:ec2::254', 'uniqueLocal address fd00:ec2::254 is never allowed'],
    ['198.18.0.1', 'reserved address 198.18.0.1 is not public'],
    ['::7f00:1', 'reserved address ::7f00:1 is not public'],
    ['64:ff9b::a00:1', 'rfc6052 address 64:ff9b::a00:1 is not public'],
    // NAT64 of the metadata address reaches it as much as the IPv4 address does.
    ['64:ff9b::a9fe:a9fe', 'rfc6052 address 64:ff9b::a9fe:a9fe is never allowed'],
    ['2002:7f00:1::', '6to4 address 2002:7f00:1:: is not public'],
    ['not-an-ip', 'not an IP address: not-an-ip'],
  ])('%s: %s', (address, reason) => {
    expect(refusalReason(address, {})).toBe(reason);
  });

  it.each<[string, TargetPolicy, string, boolean]>([
    ['private targets allowed', { allowPrivateTargets: true }, '10.0.0.1', true],
    ['private targets allowed', { allowPrivateTargets: true }, '127.0.0.1', true],
    ['private targets allowed', { allowPrivateTargets: true }, '169.254.169.254', false],
    ['private targets allowed', { allowPrivateTargets: true }, '0.0.0.0', false],
    ['private targets allowed', { allowPrivateTargets: true }, '64:ff9b::a9fe:a9fe', false],
    ['private targets allowed', { allowPrivateTargets: true }, '64:ff9b::a00:1', true],
    ['loopback ranges (dev mode)', { allowedRanges: LOOPBACK_RANGES }, '127.0.0.1', true],
    ['loopback ranges (dev mode)', { allowedRanges: LOOPBACK_RANGES }, '::1', true],
    ['loopback ranges (dev mode)', { allowedRanges: LOOPBACK_RANGES }, '10.0.0.1', false],
    ['one private range', { allowedRanges: ['10.20.0.0/16'] }, '10.20.3.4', true],
    ['one private range', { allowedRanges: ['10.20.0.0/16'] }, '10.21.3.4', false],
  ])('with %s, %s allowed: %s', (_, policy, address, allowed) => {
    expect(refusalReason(address, policy) === undefined).toBe(allowed);
  });
});

describe('guardedLookup', () => {
  const lookupWith = (addresses: LookupAddress[], options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ error: Error | null; address: unknown; family?: number | undefined }>((resolve) =>
      guardedLookup({}, async () => addresses)('hooks.example', options, (error, address, family) =>
        resolve({ error, address, family }),
      ),
    );

  it('passes public addresses on, one or all', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    expect(await lookupWith(addresses)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookupWith(addresses, { all: true })).toEqual({
      error: null,
      address: addresses,
      family: undefined,
    });
    expect(await lookupWith(addresses, { family: 6 })).toMatchObject({
      address: '2606:2800:220:1::1',
      family: 6,
    });
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const { error } = await lookupWith([
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(error).toMatchObject({
      code: 'ERR_WEBHOOK_TARGET_REFUSED',
      message: 'hooks.example does not resolve to a public address',
    });
  });

  it("never names the address a name resolved to: it is the cluster's, not the caller's", async () => {
    const { error } = await lookupWith([{ address: '10.96.0.10', family: 4 }]);
    expect((error as Error).message).toBe('hooks.example does not resolve to a public address');
    expect((error as Error).message).not.toContain('10.96');
    const metadata = await lookupWith([{ address: '169.254.169.254', family: 4 }]);
    expect((metadata.error as Error).message).toBe('hooks.example does not resolve to a public address');
  });

  it('reports a name without addresses as not found', async () => {
    expect((await lookupWith([])).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
