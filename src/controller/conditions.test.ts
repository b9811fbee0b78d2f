import { describe, expect, it } from 'vitest';
import { sameJson } from './conditions.ts';

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
