import { describe, expect, it } from 'vitest';
import { listApiModels, listProviderModels } from './listing.ts';
import { aCategory, aModel, anAccount, aProvider, aVariant, catalogOf, source } from './test-fixtures.ts';

const paused = aVariant({ runtime: { type: 'builtin', maxConcurrency: 0, typicalSeconds: 30 } });
const catalog = catalogOf(
  source('acme', {
    providers: [aProvider('acme'), aProvider('sleepy')],
    categories: [aCategory('image'), aCategory('video')],
    models: [
      aModel('acme', 'pic')
        .with({ versions: ['v1.0', 'v1.2', { version: 'v2.0', stable: false }, 'v1.10'] })
        .withVariant('text-to-image')
        .withVariant('edit-image')
        .build(),
      aModel('acme', 'clip').with({ category: 'video' }).private().build(),
      aModel('sleepy', 'idle').withVariant('text-to-image', paused).build(),
    ],
  }),
);
const account = anAccount();
const discounted = anAccount({ discount: { type: 'volume', percentage: 25 }, allowedModels: ['acme/clip'] });

describe('listApiModels (2.11)', () => {
  it('lists one entry per variant the account sees, with exactly the spec fields', () => {
    const { models } = listApiModels(catalog, account);
    expect(models.map((m) => m.id)).toEqual([
      'acme/pic/text-to-image',
      'acme/pic/edit-image',
      'sleepy/idle/text-to-image',
    ]);
    expect(models[0]).toEqual({
      id: 'acme/pic/text-to-image',
      providerId: 'acme',
      providerName: 'acme name',
      name: 'pic display',
      description: 'pic description',
      category: 'image',
      currentVersion: 'v1.10',
      versionCount: 4,
      currentVersionPricing: { baseCredits: 134000, defaultCostMicroCents: 134000, unit: 'per_generation' },
    });
    expect(Object.keys(models[0] ?? {})).toEqual([
      'id',
      'providerId',
      'providerName',
      'name',
      'description',
      'category',
      'currentVersion',
      'versionCount',
      'currentVersionPricing',
    ]);
  });

  it('includes granted private models, priced with the discount', () => {
    const { models } = listApiModels(catalog, discounted, { provider: 'acme' });
    expect(models.map((m) => [m.id, m.currentVersionPricing.baseCredits])).toEqual([
      ['acme/pic/text-to-image', 100500],
      ['acme/pic/edit-image', 100500],
      ['acme/clip/text-to-image', 100500],
    ]);
  });
});

describe('listProviderModels (2.12 and 4.14)', () => {
  it('gives the provider with exactly the spec fields and models without providerId/providerName', () => {
    const result = listProviderModels(catalog, 'acme', account);
    expect(Object.keys(result)).toEqual(['provider', 'models']);
    expect(result.provider).toEqual({
      id: 'acme',
      name: 'acme name',
      description: 'acme description',
      logoUrl: 'https://acme.example/logo.svg',
      website: 'https://acme.example',
      color: '#112233',
      categories: ['image'],
      isActive: true,
    });
    expect(Object.keys(result.models[0] ?? {})).toEqual([
      'id',
      'name',
      'description',
      'category',
      'currentVersion',
      'versionCount',
      'currentVersionPricing',
    ]);
  });

  it('describes the provider from everything the account sees, and filters only the models', () => {
    const result = listProviderModels(catalog, 'acme', discounted, { category: 'video' });
    expect(result.provider.categories).toEqual(['image', 'video']);
    expect(result.models.map((m) => [m.id, m.currentVersionPricing])).toEqual([
      [
        'acme/clip/text-to-image',
        { baseCredits: 100500, defaultCostMicroCents: 100500, unit: 'per_generation' },
      ],
    ]);
  });

  it('a provider whose every variant is paused is not active', () => {
    expect(listProviderModels(catalog, 'sleepy', account).provider.isActive).toBe(false);
  });

  it.each([['nobody'], ['ACME']])('%s is NOT_FOUND', (id) => {
    expect(() => listProviderModels(catalog, id, account)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', status: 404 }),
    );
  });
});
