import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalesce.ts';

/** A fetch whose calls are recorded and answered by hand: `answer(i)` ends the i-th call. */
function manualFetch(values: Record<string, string>) {
  const calls: Array<{ keys: string[]; end: (err?: Error) => void }> = [];
  const fetch = (keys: string[]) =>
    new Promise<Map<string, string>>((resolve, reject) => {
      calls.push({
        keys,
        end: (err) =>
          err ? reject(err) : resolve(new Map(keys.filter((k) => k in values).map((k) => [k, values[k]!]))),
      });
    });
  return { calls, fetch };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('Coalescer', () => {
  it('sends a look-up at once while fewer than maxInFlight run: an idle archive adds no wait', async () => {
    const { calls, fetch } = manualFetch({ a: 'A', b: 'B' });
    const c = new Coalescer(fetch, 2);
    const a = c.get('a');
    const b = c.get('b');
    await settle();
    expect(calls.map((x) => x.keys)).toEqual([['a'], ['b']]);
    calls[0]!.end();
    calls[1]!.end();
    expect([await a, await b]).toEqual(['A', 'B']);
  });

  it('look-ups made while maxInFlight run go together in one fetch when one ends, a key once', async () => {
    const { calls, fetch } = manualFetch({ a: 'A', b: 'B', c: 'C', d: 'D' });
    const c = new Coalescer(fetch, 1);
    const first = c.get('a');
    const waiting = [c.get('b'), c.get('c'), c.get('b'), c.get('missing')];
    await settle();
    expect(calls.map((x) => x.keys)).toEqual([['a']]);
    calls[0]!.end();
    await settle();
    expect(calls.map((x) => x.keys)).toEqual([['a'], ['b', 'c', 'missing']]);
    calls[1]!.end();
    expect(await first).toBe('A');
    expect(await Promise.all(waiting)).toEqual(['B', 'C', 'B', undefined]);
  });

  it('a failed fetch fails every look-up in it, and the next look-ups fetch again', async () => {
    const { calls, fetch } = manualFetch({ a: 'A' });
    const c = new Coalescer(fetch, 1);
    const first = c.get('a');
    const second = c.get('a');
    await settle();
    calls[0]!.end(new Error('server gone'));
    await expect(first).rejects.toThrow('server gone');
    await settle();
    calls[1]!.end(new Error('still gone'));
    await expect(second).rejects.toThrow('still gone');
    const third = c.get('a');
    await settle();
    calls[2]!.end();
    expect(await third).toBe('A');
  });

  it('a fetch that throws at once fails its look-ups like one that rejects', async () => {
    const c = new Coalescer<string>(() => {
      throw new Error('bad');
    });
    await expect(c.get('a')).rejects.toThrow('bad');
  });

  it('a batch holds at most maxBatch keys', async () => {
    const { calls, fetch } = manualFetch({});
    const c = new Coalescer(fetch, 1, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) => c.get(k));
    for (let i = 0; i < 3; i++) {
      await settle();
      calls[i]!.end();
    }
    await Promise.all(all);
    expect(calls.map((x) => x.keys)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});
