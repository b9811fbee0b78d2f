/**
 * Token buckets by key (an account), in memory, for request rates. A bucket holds up to
 * `burst` tokens and refills at `perSecond`; each request takes one. Memory stays bounded
 * without timers: a bucket that has been idle long enough to be full again is the same as
 * no bucket, so a sweep every so many requests drops those, and a hard cap on keys drops
 * the longest idle ones first when a burst of distinct keys arrives.
 */
export interface TokenBucketOptions {
  perSecond: number;
  burst: number;
  /** Most buckets kept at once (default 100,000). */
  maxKeys?: number;
}

/** The outcome of one request: allowed, or refused with the wait until a token is there. */
export type Take = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly o: Required<TokenBucketOptions>;
  private readonly buckets = new Map<string, Bucket>();
  private takesSinceSweep = 0;

  constructor(options: TokenBucketOptions) {
    if (!(options.perSecond > 0) || !(options.burst >= 1))
      throw new Error('token buckets need a positive rate and a burst of at least 1');
    this.o = { maxKeys: 100_000, ...options };
  }

  /** Buckets held now (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  take(key: string, now: number): Take {
    if (++this.takesSinceSweep >= 1_000 || this.buckets.size >= this.o.maxKeys) this.sweep(now);
    const b = this.buckets.get(key);
    // A clock stepped back (NTP, a VM resumed) refills nothing rather than a negative amount,
    // which would lock the account out for as long as the step.
    const tokens = b
      ? Math.min(this.o.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.o.perSecond)
      : this.o.burst;
    if (tokens < 1) {
      if (b) {
        b.tokens = tokens;
        b.at = now;
      }
      return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) / this.o.perSecond) * 1000) };
    }
    // Re-inserted, so the Map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { ok: true };
  }

  /** Drops every bucket that is full again; then, over the cap, the least recently used. */
  private sweep(now: number): void {
    this.takesSinceSweep = 0;
    const refillMs = (this.o.burst / this.o.perSecond) * 1000;
    for (const [key, b] of this.buckets) if (now - b.at >= refillMs) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.o.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}
