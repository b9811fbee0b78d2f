import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Which addresses a webhook may be delivered to besides public unicast ones. */
export interface TargetPolicy {
  /** Any private, loopback, link-local, CGNAT or unique-local address (tests, private deployments). */
  allowPrivateTargets?: boolean | undefined;
  /** CIDR ranges allowed although not public, e.g. {@link LOOPBACK_RANGES} in dev mode. */
  allowedRanges?: readonly string[] | undefined;
}

/** The loopback ranges, which dev mode allows. */
export const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/** Resolves a host name to all its addresses. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver (getaddrinfo), as Node's own connections use it. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

// Never a webhook target, whatever the policy: no receiver lives there, and the cloud
// metadata services hand out credentials.
const ALWAYS_REFUSED = new Set(['unspecified', 'broadcast', 'multicast']);
const METADATA = ['169.254.169.254/32', 'fd00:ec2::254/128', '100.100.100.200/32'].map((c) =>
  ipaddr.parseCIDR(c),
);
// ipaddr.js calls these 'unicast', yet they reach IPv4 space or nothing public.
const NOT_PUBLIC = ['::/96', '64:ff9b:1::/48'].map((c) => ipaddr.parseCIDR(c));

/** Why an address is refused: its range, and whether any policy could allow it. */
interface Refusal {
  range: string;
  ip: string;
  never: boolean;
}

function refusal(address: string, policy: TargetPolicy): Refusal | undefined {
  // Unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1), which connects to the IPv4 address.
  const ip = ipaddr.process(address);
  const named = ip.range();
  const range = named === 'unicast' && NOT_PUBLIC.some((cidr) => inRange(ip, cidr)) ? 'reserved' : named;
  if (range === 'unicast') return undefined;
  if (neverTarget(ip) || (range === 'rfc6052' && neverTarget(nat64Embedded(ip as ipaddr.IPv6))))
    return { range, ip: ip.toString(), never: true };
  if (
    policy.allowPrivateTargets ||
    policy.allowedRanges?.some((cidr) => inRange(ip, ipaddr.parseCIDR(cidr)))
  ) {
    return undefined;
  }
  return { range, ip: ip.toString(), never: false };
}

/** Whether no policy allows the address: see {@link ALWAYS_REFUSED}, {@link METADATA}. */
function neverTarget(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return ALWAYS_REFUSED.has(ip.range()) || METADATA.some((cidr) => inRange(ip, cidr));
}

/** The IPv4 address a well-known-prefix NAT64 address (64:ff9b::/96) reaches: its last 32 bits. */
function nat64Embedded(ip: ipaddr.IPv6): ipaddr.IPv4 {
  const [high = 0, low = 0] = ip.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const verdict = (r: Refusal) => (r.never ? 'is never allowed' : 'is not public');

/** Why `address` may not be connected to under `policy`, or undefined when it may. */
export function refusalReason(address: string, policy: TargetPolicy = {}): string | undefined {
  if (!ipaddr.isValid(address)) return `not an IP address: ${address}`;
  const r = refusal(address, policy);
  return r && `${r.range} address ${r.ip} ${verdict(r)}`;
}

/**
 * Why a name may not be connected to, given the addresses it resolved to. The message
 * reaches whoever chose the URL (a job's error, a webhook's delivery state), and what a
 * name resolves to is the cluster's DNS, not theirs: it says neither the address nor its
 * kind, and is the same as for a name that does not resolve ({@link NOT_PUBLIC_NAME}), so a
 * URL cannot tell which of the cluster's internal names exist.
 */
export function resolvedRefusal(
  hostname: string,
  addresses: readonly LookupAddress[],
  policy: TargetPolicy = {},
): string | undefined {
  const refused = addresses.some((a) => refusal(a.address, policy) !== undefined);
  return refused ? NOT_PUBLIC_NAME(hostname) : undefined;
}

/** What a name that may not be connected to is told, whether it resolves or not. */
export const NOT_PUBLIC_NAME = (hostname: string) => `${hostname} does not resolve to a public address`;

/**
 * Why a URL's host may not be connected to, when it is an IP literal (Node connects to
 * those without calling `lookup`) or a loopback name; undefined for another name or an
 * allowed address.
 */
export function literalRefusal(hostname: string, policy: TargetPolicy = {}): string | undefined {
  const host = bareHost(hostname);
  // Loopback by definition (RFC 6761), whatever a resolver says: refused as 127.0.0.1 is.
  const name = host.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost'))
    return refusal('127.0.0.1', policy) && `${name} is a loopback name, not public`;
  return ipaddr.isValid(host) ? refusalReason(host, policy) : undefined;
}

/** Why a URL's host may not be connected to: an IP literal as it is, a name by every address it resolves to. */
export async function hostRefusal(
  hostname: string,
  policy: TargetPolicy = {},
  resolve: Resolver = systemResolver,
): Promise<string | undefined> {
  const host = bareHost(hostname);
  if (ipaddr.isValid(host)) return refusalReason(host, policy);
  return resolvedRefusal(host, await resolve(host), policy);
}

/** A URL's hostname without the brackets of an IPv6 literal. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** The error a refused target fails a connection with. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET_REFUSED';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:net that resolves with `resolve` and refuses the connection unless
 * every address is allowed. It runs at connect time, so the address checked is the address
 * connected to: a name that resolves to a public address when the URL is checked and to
 * loopback a moment later (DNS rebinding) is caught here.
 */
export function guardedLookup(
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses = all.filter((a) => !family || a.family === family);
        const refused = resolvedRefusal(hostname, addresses, policy);
        const first = addresses[0];
        if (refused) callback(new TargetRefusedError(refused), '');
        else if (!first)
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        else if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function inRange(
  ip: ipaddr.IPv4 | ipaddr.IPv6,
  [network, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number],
): boolean {
  return ip.kind() === network.kind() && ip.match(network, bits);
}
