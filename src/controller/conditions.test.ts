import { describe, expect, it } from 'vitest';
import { mergePatch, sameJson } from './conditions.ts';

describe('sameJson', () => {
  it.each([
    ['key order does not matter', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, true],
    ['an undefined value is an absent key', { a: 1, b: undefined }, { a: 1 }, true],
    ['and the other way round', { a: 1 }, { a: 1, b: undefined }, true],
    ['a value that differs deep down', { a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'y' }] } }, false],
    ['a key more on one side', { a: 1 }, { a: 1, b: 2 }, false],
    ['arrays of another length', [1, 2], [1, 2, 3], false],
    ['an array is not an object with index keys', [1], { 0: 1 }, false],
    ['null is not an empty object', null, {}, false],
    ['numbers and strings', { a: '1' }, { a: 1 }, false],
  ])('%s', (_name, a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });
});

/** RFC 7386's application, to check that a patch gives what it was made for. */
function apply(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = apply(out[k], v);
  }
  return out;
}

describe('mergePatch', () => {
  const pending = { phase: 'pending', conditions: [{ type: 'Admitted', status: 'False' }] };
  const done = {
    phase: 'completed',
    progress: 100,
    outputs: [{ url: 'http://x/o.png' }],
    conditions: [{ type: 'Admitted', status: 'True' }],
    delivery: { state: 'pending', attempts: 0 },
  };

  it('carries only what changed: arrays whole, objects by member, null for what went', () => {
    expect(mergePatch(pending, done)).toEqual({
      phase: 'completed',
      progress: 100,
      outputs: [{ url: 'http://x/o.png' }],
      conditions: [{ type: 'Admitted', status: 'True' }],
      delivery: { state: 'pending', attempts: 0 },
    });
    const delivered = { ...done, delivery: { state: 'delivered', attempts: 1 }, progress: undefined };
    expect(mergePatch(done, delivered)).toEqual({
      progress: null,
      delivery: { state: 'delivered', attempts: 1 },
    });
    expect(mergePatch(done, { ...done })).toEqual({});
  });

  it.each([
    [pending, done],
    [done, pending],
    [{}, done],
    [done, {}],
    [{ a: { b: { c: 1 } } }, { a: { b: { d: 2 } } }],
  ])('applied to its start, gives its end (%#)', (from, to) => {
    expect(apply(from, mergePatch(from, to))).toEqual(to);
  });
});
