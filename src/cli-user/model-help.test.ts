import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../catalog/catalog.ts';
import { loadDefaultCatalog } from '../catalog/load.ts';
import { getCatalogModel } from '../catalog/views.ts';
import type { CatalogModelDetail } from '../client/types.ts';
import { describeEstimate, describeModel, priceText } from './model-help.ts';

const IMAGE_SLUG = 'genjobs/reference-image/text-to-image';
let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadDefaultCatalog();
});

/** The detail as the api serves it (GET /v1/catalog/models/{slug}), through JSON. */
const detail = (slug: string) =>
  JSON.parse(JSON.stringify(getCatalogModel(catalog, slug))) as CatalogModelDetail;

describe('genjobs models get', () => {
  it("shows a priced-by-the-second model's fields with their choices and defaults, once each", () => {
    const text = describeModel(detail('genjobs/reference-video/text-to-video'));
    expect(text).toContain(
      'price: 200000 micro-cents per second of duration; 2400000 with the defaults (genjobs estimate genjobs/reference-video/text-to-video --input … prices any input)',
    );
    // 4 and "4" are both accepted: one choice to a reader.
    expect(text).toMatch(/^ {2}duration {6}one of 4, 6, 8 \(default 8\)\. Clip length in seconds/m);
    expect(text).toMatch(/^ {2}has_sound {5}one of true, false \(default true\)/m);
    expect(text).toMatch(/^ {2}prompt {8}string, up to 4000 characters, required\./m);
    expect(text).toMatch(/^ {2}seed {10}integer from 0 to 4294967295\./m);
  });

  it('says which of two fields must be given, and that a list goes as JSON', () => {
    const text = describeModel(detail('genjobs/reference-image/edit-image'));
    expect(text).toMatch(/^ {2}image_urls {4}1 to 4 URL items, as a JSON list\./m);
    expect(text).toMatch(/^ {2}image {9}URL\./m);
    expect(text.split('\n').at(-1)).toBe('  image_urls or image is required');
    // text-to-image takes the same fields, none of the two required.
    expect(describeModel(detail('genjobs/reference-image/text-to-image'))).not.toContain('is required');
  });

  it('names every input field of every default model, each with a type it could tell', () => {
    for (const variant of catalog.variants) {
      const d = detail(variant.slug);
      const lines = describeModel(d).split('\n');
      for (const field of Object.keys((d.inputSchema as { properties: object }).properties)) {
        const line = lines.find((l) => l.startsWith(`  ${field} `));
        expect(line, `${variant.slug} ${field}`).toBeDefined();
        expect(line).not.toMatch(/ value\b/);
      }
    }
  });
});

describe('prices as the model commands print them', () => {
  it("adds a job's price with the defaults where it is not the base price", () => {
    expect(priceText(detail('genjobs/reference-image/text-to-image').pricing)).toBe(
      '134000 micro-cents per job',
    );
    expect(priceText(detail('genjobs/reference-video/text-to-video').pricing)).toBe(
      '200000 micro-cents per second of duration; 2400000 with the defaults',
    );
    expect(priceText({ baseCredits: 100, defaultCostMicroCents: 150 })).toBe(
      '100 micro-cents per job; 150 with the defaults',
    );
    expect(priceText({ baseCredits: 100, defaultCostMicroCents: null })).toBe('100 micro-cents per job');
  });

  it("says when a model's slug was given for its default variant, and names the variants run takes", () => {
    const text = describeModel(detail('genjobs/reference-image'), 'genjobs/reference-image');
    expect(text.split('\n')[0]).toMatch(/^genjobs\/reference-image\/text-to-image /);
    expect(text).toContain(
      "(genjobs/reference-image is a model: this is its default variant; run and estimate take a variant's slug: genjobs/reference-image/text-to-image, genjobs/reference-image/edit-image)",
    );
    expect(describeModel(detail(IMAGE_SLUG))).not.toContain('is a model');
  });

  it('an estimate part by part, its discount last', () => {
    expect(
      describeEstimate({
        baseCostMicroCents: 2_400_000,
        estimatedCostMicroCents: 2_400_000,
        breakdown: [
          { component: 'base', costMicroCents: 1_600_000 },
          { component: 'has_sound=true', costMicroCents: 800_000 },
        ],
        hasDiscount: false,
      }).split('\n'),
    ).toEqual([
      '2400000 micro-cents ($2.40)',
      '  base                 1600000',
      '  has_sound=true        800000',
    ]);
    const discounted = describeEstimate({
      baseCostMicroCents: 134_000,
      estimatedCostMicroCents: 120_600,
      breakdown: [
        { component: 'base', costMicroCents: 134_000 },
        { component: 'discount', costMicroCents: -13_400 },
      ],
      hasDiscount: true,
      discounted: { type: 'account', percentage: 10, savedMicroCents: 13_400 },
    }).split('\n');
    expect(discounted[0]).toBe('120600 micro-cents ($0.1206)');
    expect(discounted.slice(1)).toEqual([
      '  base                           134000',
      '  discount (account, 10%)        -13400',
    ]);
  });
});
