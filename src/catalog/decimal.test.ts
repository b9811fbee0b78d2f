import { describe, expect, it } from 'vitest';
import { parseDecimal, roundHalfUp, toSafeNumber } from './decimal.ts';

describe('parseDecimal', () => {
  it.each([
    [1, 1n, 1n],
    [1.8, 18n, 10n],
    ['1.8', 18n, 10n],
    ['1.50', 150n, 100n],
    [0.000001, 1n, 1_000_000n],
    ['8', 8n, 1n],
    [0, 0n, 1n],
  ])('%s is exactly %i/%i', (value, num, den) => {
    expect(parseDecimal(value)).toEqual({ num, den });
  });

  it.each([
    [-1],
    ['-1.5'],
    ['1e3'],
    [1e21],
    ['0.0000001'],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [true],
    [null],
    ['abc'],
    [''],
  ])('refuses %s', (value) => {
    expect(parseDecimal(value)).toBeUndefined();
  });
});

describe('roundHalfUp', () => {
  it.each([
    [5n, 2n, 3n],
    [3n, 2n, 2n],
    [7n, 4n, 2n],
    [5n, 4n, 1n],
    [0n, 3n, 0n],
    [2n, 3n, 1n],
    [1n, 3n, 0n],
  ])('%i/%i rounds to %i', (num, den, expected) => {
    expect(roundHalfUp({ num, den })).toBe(expected);
  });
});

describe('toSafeNumber', () => {
  it('converts within range and throws beyond 2^53', () => {
    expect(toSafeNumber(241_200n)).toBe(241_200);
    expect(() => toSafeNumber(2n ** 53n)).toThrow(RangeError);
  });
});
