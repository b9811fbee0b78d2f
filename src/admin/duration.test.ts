import { describe, expect, it } from 'vitest';
import { parseDuration, parseLifetime } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['45s', 45_000],
    ['90m', 5_400_000],
    ['12h', 43_200_000],
    ['30d', 2_592_000_000],
    ['0s', 0],
    ['0', 0], // --overlap 0: the old webhook secret stops signing at once
  ])('%s is %i ms', (v, ms) => {
    expect(parseDuration(v)).toBe(ms);
  });

  it.each(['', '30', '30x', '-1s', '1.5h', 'd'])('refuses %j', (v) => {
    expect(() => parseDuration(v)).toThrow(/not a duration/);
  });
});

describe('parseLifetime', () => {
  it.each(['0', '0s', '0m', '0d', '00h'])(
    'refuses %j: a key that has expired already, not one that never does',
    (v) => {
      expect(() => parseLifetime(v)).toThrow(/a lifetime is more than 0/);
    },
  );

  it.each(['30x', '', '1.5h'])('refuses %j without offering 0 (which it refuses too)', (v) => {
    expect(() => parseLifetime(v)).toThrow(/^not a lifetime \(like 30d, 12h or 90m\): /);
  });

  it('takes any other duration', () => {
    expect(parseLifetime('30d')).toBe(2_592_000_000);
  });
});
