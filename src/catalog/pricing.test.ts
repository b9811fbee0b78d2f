import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Catalog, Variant } from './catalog.ts';
import { loadDefaultCatalog } from './load.ts';
import { applyDiscount, type PricedVariant, price } from './pricing.ts';

let catalog: Catalog;
const variant = (slug: string): Variant => catalog.variantsBySlug.get(slug)!;
const TEXT_TO_IMAGE = 'genjobs/reference-image/text-to-image';
const EDIT_IMAGE = 'genjobs/reference-image/edit-image';
const TEXT_TO_VIDEO = 'genjobs/reference-video/text-to-video';

beforeAll(async () => {
  catalog = await loadDefaultCatalog();
});

describe('price: the spec default-cost cases', () => {
  it.each([
    ['image at 1k (the default)', 134_000, TEXT_TO_IMAGE, {}],
    ['image at 4k', 241_200, TEXT_TO_IMAGE, { resolution: '4k' }],
    ['edit-image at 4k', 241_200, EDIT_IMAGE, { resolution: '4k' }],
    ['video 8 s, 720p, with sound (the defaults)', 2_400_000, TEXT_TO_VIDEO, {}],
    [
      'video 8 s, 720p, with sound, spelled out',
      2_400_000,
      TEXT_TO_VIDEO,
      { duration: 8, resolution: '720p', has_sound: true },
    ],
  ])('%s costs exactly %i', (_name, expected, slug, input) => {
    const estimate = price(variant(slug), input);
    expect(estimate.estimatedCostMicroCents).toBe(expected);
    expect(estimate.baseCostMicroCents).toBe(expected);
    expect(estimate.hasDiscount).toBe(false);
    expect(estimate).not.toHaveProperty('discounted');
  });
});

describe('price: every image multiplier', () => {
  it.each([
    [TEXT_TO_IMAGE, '1k', 134_000],
    [TEXT_TO_IMAGE, '2k', 134_000],
    [TEXT_TO_IMAGE, '4k', 241_200],
    [EDIT_IMAGE, '1k', 134_000],
    [EDIT_IMAGE, '2k', 134_000],
    [EDIT_IMAGE, '4k', 241_200],
  ])('%s at %s costs %i', (slug, resolution, expected) => {
    expect(price(variant(slug), { resolution }).estimatedCostMicroCents).toBe(expected);
  });
});

describe('price: every video multiplier, in both accepted shapes', () => {
  // factors in tenths, so the expectation is integer arithmetic too
  const resolutions = [
    ['720p', 10],
    ['1080p', 10],
    ['4k', 15],
  ] as const;
  const sounds = [
    [false, 10],
    [true, 15],
  ] as const;
  const cases = [4, 6, 8].flatMap((duration) =>
    resolutions.flatMap(([resolution, r]) =>
      sounds.map(([sound, s]) => ({
        duration,
        resolution,
        sound,
        expected: (200_000 * duration * r * s) / 100,
      })),
    ),
  );
  it.each(cases)(
    '$duration s, $resolution, sound $sound costs $expected',
    ({ duration, resolution, sound, expected }) => {
      const asNumbers = price(variant(TEXT_TO_VIDEO), { duration, resolution, has_sound: sound });
      const asStrings = price(variant(TEXT_TO_VIDEO), {
        duration: String(duration),
        resolution,
        has_sound: String(sound),
      });
      expect(asNumbers.estimatedCostMicroCents).toBe(expected);
      expect(asStrings).toEqual(asNumbers);
    },
  );
});

describe('price: breakdown', () => {
  it('lists base, then each multiplier as the amount it adds, summing to the total', () => {
    const estimate = price(variant(TEXT_TO_VIDEO), { duration: 6, resolution: '4k', has_sound: 'true' });
    expect(estimate.breakdown).toEqual([
      { component: 'base', costMicroCents: 1_200_000 },
      { component: 'resolution=4k', costMicroCents: 600_000 },
      { component: 'has_sound=true', costMicroCents: 900_000 },
    ]);
    expect(estimate.estimatedCostMicroCents).toBe(2_700_000);
  });

  it.each([
    [{ percentage: 10 }, 2_700_000, 2_430_000],
    [{ percentage: 12.5 }, 2_700_000, 2_362_500],
    [{ percentage: 100 }, 2_700_000, 0],
  ])('with discount %o the lines still add up exactly', (d, base, final) => {
    const estimate = price(
      variant(TEXT_TO_VIDEO),
      { duration: 6, resolution: '4k' },
      { type: 'promo', ...d },
    );
    const sum = estimate.breakdown.reduce((acc, line) => acc + line.costMicroCents, 0);
    expect(sum).toBe(final);
    expect(estimate.breakdown.at(-1)).toEqual({ component: 'discount', costMicroCents: final - base });
    expect(estimate).toMatchObject({
      baseCostMicroCents: base,
      estimatedCostMicroCents: final,
      hasDiscount: true,
    });
    expect(estimate.discounted).toEqual({
      type: 'promo',
      percentage: d.percentage,
      savedMicroCents: base - final,
    });
  });
});

describe('price: rounding is half up, once, on the exact amount', () => {
  const odd = (
    baseCredits: number,
    multipliers: Record<string, Record<string, number | string>>,
  ): PricedVariant => ({
    pricing: { baseCredits, unit: 'per_generation', multipliers },
    inputSchema: { type: 'object', properties: { q: { type: 'string' }, r: { type: 'string' } } },
  });

  it.each([
    ['.5 rounds up', odd(5, { q: { x: 0.5 } }), { q: 'x' }, undefined, 3],
    ['.4999 rounds down', odd(9_999, { q: { x: '0.0001' } }), { q: 'x' }, undefined, 1],
    [
      'factors multiply before rounding (3 × 0.5 × 0.5 = 0.75 → 1)',
      odd(3, { q: { x: 0.5 }, r: { y: 0.5 } }),
      { q: 'x', r: 'y' },
      undefined,
      1,
    ],
    [
      'discount on the exact amount (1.5 × 50 % = 0.75 → 1, not 2 × 50 % = 1)',
      odd(3, { q: { x: 0.5 } }),
      { q: 'x' },
      50,
      1,
    ],
    ['33 % off 100 = 67', odd(100, {}), {}, 33, 67],
    [
      'a third of a cent rounds to the nearest micro-cent',
      odd(1_000_001, { q: { x: '0.333333' } }),
      { q: 'x' },
      undefined,
      333_333,
    ],
  ])('%s', (_name, v, input, percentage, expected) => {
    const discount = percentage === undefined ? undefined : { type: 'promo', percentage };
    const estimate = price(v, input, discount);
    expect(estimate.estimatedCostMicroCents).toBe(expected);
    expect(estimate.breakdown.reduce((acc, line) => acc + line.costMicroCents, 0)).toBe(expected);
  });

  it('100 × 1.005 is 100.5 and rounds to 101, where floating point gives 100.49999999999999', () => {
    expect(Math.round(100 * 1.005)).toBe(100);
    expect(price(odd(100, { q: { x: 1.005 } }), { q: 'x' }).estimatedCostMicroCents).toBe(101);
  });
});

describe('price: discounts', () => {
  it.each([
    ['no discount', false, undefined],
    ['0 %', false, { type: 'promo', percentage: 0 }],
    ['20 %', true, { type: 'volume', percentage: 20 }],
  ])('%s: hasDiscount is %s', (_name, expected, discount) => {
    const estimate = price(variant(TEXT_TO_IMAGE), {}, discount);
    expect(estimate.hasDiscount).toBe(expected);
    expect('discounted' in estimate).toBe(expected);
  });

  it.each([-1, 101, Number.NaN])('a percentage of %s is a bug and throws', (percentage) => {
    expect(() => price(variant(TEXT_TO_IMAGE), {}, { type: 'x', percentage })).toThrow(RangeError);
  });

  it.each([
    [134_000, undefined, 134_000],
    [134_000, 10, 120_600],
    [200_000, 12.5, 175_000],
    [5, 50, 3],
  ])('applyDiscount(%i, %s %) = %i, the same rounding as price', (amount, percentage, expected) => {
    const discount = percentage === undefined ? undefined : { type: 'promo', percentage };
    expect(applyDiscount(amount, discount)).toBe(expected);
  });
});

describe('price: inputs it cannot price', () => {
  it.each([
    ['a resolution with no factor', '/input/resolution', TEXT_TO_IMAGE, { resolution: '8k' }],
    ['a sound flag that is not true/false', '/input/has_sound', TEXT_TO_VIDEO, { has_sound: 'yes' }],
    ['a duration that is not a number', '/input/duration', TEXT_TO_VIDEO, { duration: 'long' }],
    ['a zero duration', '/input/duration', TEXT_TO_VIDEO, { duration: 0 }],
    ['a negative duration', '/input/duration', TEXT_TO_VIDEO, { duration: -4 }],
  ])('%s is INVALID_INPUT at %s', (_name, pointer, slug, input) => {
    const error = (() => {
      try {
        price(variant(slug), input);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INVALID_INPUT', errors: [{ pointer }] });
  });
});

describe('price: a job no account could pay for', () => {
  it('is INVALID_INPUT at the field that took it past the most an account holds, never a RangeError', () => {
    const costly: PricedVariant = {
      slug: 'p/m/v',
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'integer', default: 1 }, seconds: { type: 'integer', default: 1 } },
      },
      pricing: {
        baseCredits: 400_000_000_000_000,
        unit: 'per_second',
        perSecond: { field: 'seconds' },
        multipliers: { n: { '1': '1', '7': '7' } },
      },
    } as unknown as PricedVariant;
    expect(price(costly, {}).estimatedCostMicroCents).toBe(400_000_000_000_000);
    const refusal = (input: Record<string, unknown>) => {
      try {
        price(costly, input);
      } catch (e) {
        return e;
      }
    };
    // 4e14 × 3 s is past 1e15; 4e14 × 7 (2.8e15) too; 4e14 × 7 × 10,000,000 s past 2^53.
    expect(refusal({ seconds: 3 })).toMatchObject({
      code: 'INVALID_INPUT',
      errors: [{ pointer: '/input/seconds' }],
    });
    expect(refusal({ n: 7 })).toMatchObject({ code: 'INVALID_INPUT', errors: [{ pointer: '/input/n' }] });
    expect(refusal({ n: 7, seconds: 10_000_000 })).toBeInstanceOf(AppError);
  });
});
