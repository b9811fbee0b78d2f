import { describe, expect, it } from 'vitest';
import { loadDefaultCatalog } from './load.ts';
import type { PricedVariant } from './pricing.ts';
import { defaultCost } from './view-build.ts';

const perSecond = (duration: Record<string, unknown>): PricedVariant => ({
  inputSchema: { type: 'object', properties: { prompt: { type: 'string' }, duration } },
  pricing: { baseCredits: 200_000, unit: 'per_second', perSecond: { field: 'duration' }, multipliers: {} },
});

describe('the default job price of a listing', () => {
  it('is what submit charges for the defaults: the spec cases in the default catalog', async () => {
    const catalog = await loadDefaultCatalog();
    const priced = Object.fromEntries(catalog.variants.map((v) => [v.slug, v.views.item.pricing]));
    expect(priced['genjobs/reference-video/text-to-video']).toEqual({
      baseCredits: 200_000,
      defaultCostMicroCents: 2_400_000,
      // The spec's unit for every model; the rate's field says it is per second.
      unit: 'per_generation',
      perSecond: { field: 'duration' },
    });
    expect(priced['genjobs/reference-image/text-to-image']?.defaultCostMicroCents).toBe(134_000);
  });

  it('is null when the defaults alone do not price (a duration without default)', () => {
    expect(defaultCost(perSecond({ type: 'integer' }))).toBeNull();
    expect(defaultCost(perSecond({ type: 'integer', default: 4 }))).toBe(800_000);
  });

  it('takes the discount off the exact amount, as submit does', () => {
    expect(
      defaultCost(perSecond({ type: 'number', default: 1.5 }), { type: 'account', percentage: 33 }),
    ).toBe(201_000);
  });
});
