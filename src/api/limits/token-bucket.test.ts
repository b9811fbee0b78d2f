import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-bucket.ts';

describe('TokenBuckets', () => {
  it('allows a burst, then refuses with the wait until the next token', () => {
    const b = new TokenBuckets({ perSecond: 2, burst: 3 });
    expect([0, 0, 0].map(() => b.take('a', 1_000).ok)).toEqual([true, true, true]);
    expect(b.take('a', 1_000)).toEqual({ ok: false, retryAfterMs: 500 });
    expect(b.take('a', 1_250)).toEqual({ ok: false, retryAfterMs: 250 });
    expect(b.take('a', 1_500).ok).toBe(true);
  });

  it('a clock stepped back ten minutes refills nothing, and locks no one out for the step', () => {
    const b = new TokenBuckets({ perSecond: 5, burst: 3 });
    const t = 1_000_000;
    for (let i = 0; i < 3; i++) expect(b.take('a', t).ok).toBe(true);
    const back = t - 600_000;
    expect(b.take('a', back)).toEqual({ ok: false, retryAfterMs: 200 });
    expect(b.take('a', back + 200).ok).toBe(true);
  });

  it('keeps one bucket per key', () => {
    const b = new TokenBuckets({ perSecond: 1, burst: 1 });
    expect(b.take('a', 0).ok).toBe(true);
    expect(b.take('a', 0).ok).toBe(false);
    expect(b.take('b', 0).ok).toBe(true);
  });

  it('forgets buckets that refilled, so idle accounts cost no memory', () => {
    const b = new TokenBuckets({ perSecond: 10, burst: 10 });
    for (let i = 0; i < 999; i++) b.take(`k${i}`, 0);
    expect(b.size).toBe(999);
    // The 1000th take sweeps: a second later every earlier bucket is full again.
    b.take('late', 1_000);
    expect(b.size).toBe(1);
  });

  it('holds at most maxKeys buckets, dropping the least recently used', () => {
    const b = new TokenBuckets({ perSecond: 1, burst: 5, maxKeys: 3 });
    for (const k of ['a', 'b', 'c']) b.take(k, 0);
    b.take('a', 1);
    b.take('d', 2);
    expect(b.size).toBeLessThanOrEqual(3);
    // 'b' was the least recently used: its bucket is gone, so it starts full.
    for (let i = 0; i < 5; i++) expect(b.take('b', 3).ok).toBe(true);
  });
});
