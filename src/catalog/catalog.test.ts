import { describe, expect, it } from 'vitest';
import { findVariant, resolveVersion } from './catalog.ts';
import { aModel, catalogWith } from './test-fixtures.ts';

const catalog = catalogWith(
  aModel('acme', 'pic')
    .with({
      versions: ['v1.9', 'v1.10', { version: 'v2.0', stable: false }, 'v0.3'],
      defaultCapability: 'edit-image',
    })
    .withVariant('text-to-image')
    .withVariant('edit-image'),
);
const model = catalog.modelsBySlug.get('acme/pic')!;

describe('versions', () => {
  it('orders versions numerically; the current one is the latest stable', () => {
    expect(model.versions.map((v) => v.version)).toEqual(['v0.3', 'v1.9', 'v1.10', 'v2.0']);
    expect(model.currentVersion).toBe('v1.10');
    expect(model.versionCount).toBe(4);
  });

  it.each([
    [undefined, 'v1.10'],
    ['v1.9', 'v1.9'],
    ['v2.0', 'v2.0'],
  ])('resolveVersion(%s) is %s', (requested, expected) => {
    expect(resolveVersion(model, requested)).toBe(expected);
  });

  it.each([['v3.0'], ['latest'], ['1.9'], ['']])('resolveVersion(%o) is MODEL_NOT_FOUND', (requested) => {
    expect(() => resolveVersion(model, requested)).toThrow(
      expect.objectContaining({
        code: 'MODEL_NOT_FOUND',
        status: 404,
        errors: [{ pointer: '/version', message: 'unknown version' }],
      }),
    );
  });
});

describe('findVariant', () => {
  it.each([
    ['acme/pic/text-to-image', 'acme/pic/text-to-image'],
    ['acme/pic', 'acme/pic/edit-image'],
    ['acme/pic/text-to-video', undefined],
    ['acme/nope', undefined],
    ['acme', undefined],
    ['acme/pic/edit-image/x', undefined],
    ['', undefined],
  ])('%s names %s', (slug, expected) => {
    expect(findVariant(catalog, slug)?.slug).toBe(expected);
  });

  it('links models and variants both ways', () => {
    const variant = findVariant(catalog, 'acme/pic/text-to-image')!;
    expect(variant.model).toBe(model);
    expect(model.defaultVariant.capability).toBe('edit-image');
    expect(model.variants.map((v) => v.capability)).toEqual(['text-to-image', 'edit-image']);
  });
});
