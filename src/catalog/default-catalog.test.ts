import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from './catalog.ts';
import { prepareInput } from './input.ts';
import { buildCatalog, loadDefaultCatalog } from './load.ts';
import { price } from './pricing.ts';
import {
  getCatalogModel,
  listCapabilityGroups,
  listCatalogModels,
  listCatalogModelsJson,
  listCategories,
} from './views.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadDefaultCatalog();
});

describe('the default catalog', () => {
  it('has the spec categories and capability groups, groups in display order', () => {
    expect(listCategories(catalog).map((c) => [c.id, c.modelCount])).toEqual([
      ['video', 1],
      ['image', 2],
    ]);
    expect(listCapabilityGroups(catalog).map((g) => g.id)).toEqual([
      'text-to-video',
      'image-to-video',
      'text-to-image',
    ]);
    expect(catalog.providers.map((p) => [p.id, p.name])).toEqual([['genjobs', 'genjobs reference']]);
  });

  it('has a public builtin model for each known capability', () => {
    expect(
      listCatalogModels(catalog)
        .map((m) => m.capability)
        .sort(),
    ).toEqual(['edit-image', 'text-to-image', 'text-to-video']);
    for (const variant of catalog.variants) {
      expect(variant.runtime).toMatchObject({ type: 'builtin', maxConcurrency: 4, timeoutSeconds: 600 });
      expect(variant.runtime.typicalSeconds).toBe(variant.capability === 'text-to-video' ? 240 : 30);
      expect(variant.inputSchema.properties).toHaveProperty('seed');
      expect(variant.inputSchema.additionalProperties).toBe(false);
    }
  });

  it.each([
    ['genjobs/reference-image', { prompt: 'a lighthouse' }, 134_000],
    ['genjobs/reference-image/text-to-image', { prompt: 'a lighthouse', resolution: '4k' }, 241_200],
    [
      'genjobs/reference-image/edit-image',
      { prompt: 'add a hat', image: 'https://cdn.example/u/1.png', resolution: '4k' },
      241_200,
    ],
    ['genjobs/reference-video', { prompt: 'waves' }, 2_400_000],
    [
      'genjobs/reference-video/text-to-video',
      { prompt: 'waves', duration: '8', resolution: '720p', has_sound: 'true' },
      2_400_000,
    ],
  ])('submit of %s with %o is charged %i', (slug, input, expected) => {
    const variant =
      getCatalogModel(catalog, slug) && catalog.variantsBySlug.get(getCatalogModel(catalog, slug).slug)!;
    expect(price(variant, prepareInput(variant, input)).estimatedCostMicroCents).toBe(expected);
  });
});

describe('a large catalog', () => {
  it('lists 1,000 models with visibility applied per caller (speed is measured by npm run bench)', () => {
    const yaml = [
      'providers: [{id: p, name: P, logoUrl: "https://p.example/l.svg", website: "https://p.example", color: "#123456"}]',
      'categories: [{id: image, name: Image}]',
      'models:',
      ...Array.from({ length: 1000 }, (_, i) =>
        [
          `  - {provider: p, name: m${i}, displayName: M${i}, category: image, tags: [a, b], versions: [v1.0],`,
          `     visibility: ${i % 10 === 0 ? 'private' : 'public'},`,
          '     variants: {text-to-image: {inputSchema: {type: object, properties: {prompt: {type: string}}},',
          '       pricing: {baseCredits: 134000, unit: per_generation}, runtime: {type: builtin, maxConcurrency: 1, typicalSeconds: 30}}}}',
        ].join('\n'),
      ),
    ].join('\n');
    const big = buildOrThrow(yaml);
    const account = {
      spec: { segments: ['x'], allowedModels: ['p/m10'], discount: { type: 'promo', percentage: 10 } },
    };
    expect(JSON.parse(listCatalogModelsJson(big))).toHaveLength(900);
    expect(JSON.parse(listCatalogModelsJson(big, account))).toHaveLength(901);
  });
});

function buildOrThrow(yaml: string): Catalog {
  const result = buildCatalog([{ name: 'big', documents: { 'big.yaml': yaml } }]);
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.catalog;
}
