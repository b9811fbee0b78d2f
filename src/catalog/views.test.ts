import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { InputSchema } from './schema-variant.ts';
import {
  aCategory,
  aGroup,
  aModel,
  anAccount,
  aProvider,
  aVariant,
  catalogOf,
  source,
} from './test-fixtures.ts';
import {
  getCatalogModel,
  getCatalogProvider,
  listCapabilityGroups,
  listCatalogModels,
  listCatalogModelsJson,
  listCatalogProviders,
  listCategories,
} from './views.ts';

const video = aVariant({
  inputSchema: {
    type: 'object',
    properties: { prompt: { type: 'string' }, duration: { type: 'integer', default: 8 } },
  },
  pricing: { baseCredits: 200000, unit: 'per_second', perSecond: { field: 'duration' } },
});
const catalog = catalogOf(
  source('shared', {
    categories: [aCategory('image'), aCategory('video'), aCategory('audio')],
    capabilityGroups: [aGroup('text-to-image', 3), aGroup('text-to-video', 1), aGroup('image-to-video', 2)],
  }),
  source('acme', {
    providers: [aProvider('acme')],
    models: [
      aModel('acme', 'pic')
        .with({ tags: ['fast'], ratings: { average: 4.5, count: 12 }, defaultCapability: 'text-to-image' })
        .withVariant('edit-image')
        .withVariant('text-to-image')
        .build(),
      aModel('acme', 'clip').with({ category: 'video' }).withVariant('text-to-video', video).build(),
      aModel('acme', 'beta').segment('beta').build(),
    ],
  }),
  source('hidden', {
    providers: [aProvider('hidden')],
    models: [aModel('hidden', 'only').private().build()],
  }),
);

const beta = anAccount({ segments: ['beta'] });
const discounted = anAccount({ discount: { type: 'promo', percentage: 10 } });
const insider = anAccount({ allowedModels: ['hidden/only'] });

describe('listCatalogModels (2.6)', () => {
  it('gives each item exactly the spec fields', () => {
    const [item] = listCatalogModels(catalog);
    expect(item).toEqual({
      slug: 'acme/pic/edit-image',
      provider: { id: 'acme', name: 'acme name', logoUrl: 'https://acme.example/logo.svg' },
      category: 'image',
      capability: 'edit-image',
      pricing: { baseCredits: 134000, defaultCostMicroCents: 134000, unit: 'per_generation' },
      tags: ['fast'],
      ratings: { average: 4.5, count: 12 },
    });
    expect(Object.keys(item ?? {})).toEqual([
      'slug',
      'provider',
      'category',
      'capability',
      'pricing',
      'tags',
      'ratings',
    ]);
  });

  it.each([
    ['anonymous', undefined, ['acme/pic/edit-image', 'acme/pic/text-to-image', 'acme/clip/text-to-video']],
    [
      'a beta account',
      beta,
      ['acme/pic/edit-image', 'acme/pic/text-to-image', 'acme/clip/text-to-video', 'acme/beta/text-to-image'],
    ],
    [
      'an account granted hidden/only',
      insider,
      [
        'acme/pic/edit-image',
        'acme/pic/text-to-image',
        'acme/clip/text-to-video',
        'hidden/only/text-to-image',
      ],
    ],
  ])('%s sees what it may', (_who, account, slugs) => {
    expect(listCatalogModels(catalog, account).map((i) => i.slug)).toEqual(slugs);
  });

  it.each([
    [{ category: 'video' }, ['acme/clip/text-to-video']],
    [{ capability: 'text-to-image' }, ['acme/pic/text-to-image']],
    [{ provider: 'acme', capability: 'edit-image' }, ['acme/pic/edit-image']],
    [{ provider: 'hidden' }, []],
    [{ category: 'nope' }, []],
  ])('filter %o', (filter, slugs) => {
    expect(listCatalogModels(catalog, undefined, filter).map((i) => i.slug)).toEqual(slugs);
  });

  it('prices for the caller: baseCredits and the default job after the discount, nothing else changed', () => {
    const items = listCatalogModels(catalog, discounted);
    expect(items.map((i) => i.pricing)).toEqual([
      { baseCredits: 120600, defaultCostMicroCents: 120600, unit: 'per_generation' },
      { baseCredits: 120600, defaultCostMicroCents: 120600, unit: 'per_generation' },
      // per_second: the default duration (8 s) times the rate, then the discount
      {
        baseCredits: 180000,
        defaultCostMicroCents: 1_440_000,
        unit: 'per_generation',
        perSecond: { field: 'duration' },
      },
    ]);
    expect(listCatalogModels(catalog)[0]?.pricing.baseCredits).toBe(134000);
  });

  it.each([
    ['anonymous', undefined, {}],
    ['anonymous, filtered', undefined, { capability: 'edit-image' }],
    ['with a discount', discounted, {}],
    ['in a segment', beta, { provider: 'acme' }],
  ])('the serialized list (%s) is exactly the list, serialized', (_who, account, filter) => {
    expect(listCatalogModelsJson(catalog, account, filter)).toBe(
      JSON.stringify(listCatalogModels(catalog, account, filter)),
    );
  });

  it('serves anonymous callers one precomputed, frozen list', () => {
    expect(listCatalogModels(catalog)).toBe(listCatalogModels(catalog));
    expect(Object.isFrozen(listCatalogModels(catalog)[0]?.pricing)).toBe(true);
  });
});

describe('getCatalogModel (2.7)', () => {
  it('gives exactly the spec fields, siblings being the other variants', () => {
    const detail = getCatalogModel(catalog, 'acme/pic/text-to-image');
    expect(Object.keys(detail)).toEqual([
      'slug',
      'provider',
      'name',
      'description',
      'category',
      'capability',
      'inputSchema',
      'pricing',
      'siblings',
    ]);
    expect(detail).toMatchObject({
      slug: 'acme/pic/text-to-image',
      provider: { id: 'acme', name: 'acme name', logoUrl: 'https://acme.example/logo.svg' },
      name: 'pic display',
      description: 'pic description',
      category: 'image',
      capability: 'text-to-image',
      pricing: { baseCredits: 134000, defaultCostMicroCents: 134000, unit: 'per_generation' },
      siblings: [{ slug: 'acme/pic/edit-image', capability: 'edit-image' }],
    });
    expect(detail.inputSchema).toMatchObject({ type: 'object', required: ['prompt'] });
  });

  it("shows a variant's inputSchema widened by the spellings submit also takes", () => {
    const detail = getCatalogModel(catalog, 'acme/clip/text-to-video') as { inputSchema: InputSchema };
    expect(detail.inputSchema.properties.duration).toEqual({
      type: ['integer', 'string'],
      default: 8,
      pattern: '^-?[0-9]+$|^-?[0-9]+\\.0+$',
    });
  });

  it('the two-part slug names the default capability', () => {
    expect(getCatalogModel(catalog, 'acme/pic').slug).toBe('acme/pic/text-to-image');
    expect(getCatalogModel(catalog, 'acme/clip').siblings).toEqual([]);
  });

  it.each([
    ['acme/nope'],
    ['acme/pic/text-to-video'],
    ['acme'],
    ['a/b/c/d'],
    ['acme/beta'],
    ['hidden/only/text-to-image'],
  ])('%s is MODEL_NOT_FOUND for an anonymous caller', (slug) => {
    expect(() => getCatalogModel(catalog, slug)).toThrow(
      expect.objectContaining({ code: 'MODEL_NOT_FOUND' }),
    );
  });

  it('an account that may see it gets it, priced for it', () => {
    expect(getCatalogModel(catalog, 'acme/beta', beta).slug).toBe('acme/beta/text-to-image');
    expect(getCatalogModel(catalog, 'acme/pic', discounted).pricing.baseCredits).toBe(120600);
  });
});

describe('providers (2.8)', () => {
  it('lists providers with their count of visible variants, leaving out those with none', () => {
    const list = listCatalogProviders(catalog);
    expect(list).toEqual([
      {
        id: 'acme',
        name: 'acme name',
        description: 'acme description',
        logoUrl: 'https://acme.example/logo.svg',
        website: 'https://acme.example',
        color: '#112233',
        modelCount: 3,
      },
    ]);
    expect(listCatalogProviders(catalog, insider).map((p) => [p.id, p.modelCount])).toEqual([
      ['acme', 3],
      ['hidden', 1],
    ]);
    expect(listCatalogProviders(catalog, beta, { category: 'image' }).map((p) => p.modelCount)).toEqual([3]);
  });

  it('details a provider with exactly the spec fields and its visible models', () => {
    const detail = getCatalogProvider(catalog, 'acme', discounted);
    expect(Object.keys(detail)).toEqual([
      'id',
      'name',
      'description',
      'logoUrl',
      'website',
      'color',
      'models',
    ]);
    expect(detail.models.map((m) => m.slug)).toEqual([
      'acme/pic/edit-image',
      'acme/pic/text-to-image',
      'acme/clip/text-to-video',
    ]);
    expect(detail.models[0]).toEqual({
      slug: 'acme/pic/edit-image',
      name: 'pic display',
      description: 'pic description',
      category: 'image',
      capability: 'edit-image',
      pricing: { baseCredits: 120600, defaultCostMicroCents: 120600, unit: 'per_generation' },
      tags: ['fast'],
    });
  });

  it.each([['nobody'], ['hidden']])('provider %s is NOT_FOUND for an anonymous caller', (id) => {
    expect(() => getCatalogProvider(catalog, id)).toThrow(AppError);
    expect(() => getCatalogProvider(catalog, id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});

describe('capability groups (2.9) and categories (2.10)', () => {
  it('lists capability groups in ascending order with exactly the spec fields', () => {
    const groups = listCapabilityGroups(catalog);
    expect(groups.map((g) => g.id)).toEqual(['text-to-video', 'image-to-video', 'text-to-image']);
    expect(groups[0]).toEqual({
      id: 'text-to-video',
      displayName: 'text-to-video display',
      label: 'TEX',
      icon: 'icon',
      color: '#445566',
      order: 1,
    });
  });

  it('lists every category with the live count of variants the caller sees', () => {
    expect(listCategories(catalog)).toEqual([
      { id: 'image', name: 'image name', description: 'image description', modelCount: 2 },
      { id: 'video', name: 'video name', description: 'video description', modelCount: 1 },
      { id: 'audio', name: 'audio name', description: 'audio description', modelCount: 0 },
    ]);
    expect(listCategories(catalog, beta).map((c) => c.modelCount)).toEqual([3, 1, 0]);
  });
});
