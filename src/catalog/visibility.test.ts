import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { aModel, anAccount, catalogWith } from './test-fixtures.ts';
import { type CatalogAccount, canSee, canUse, resolveForSubmit } from './visibility.ts';

const catalog = catalogWith(
  aModel('acme', 'open'),
  aModel('acme', 'beta').segment('beta', 'staff'),
  aModel('acme', 'secret').private().withVariant('text-to-image').withVariant('edit-image'),
);
const model = (name: string) => catalog.modelsBySlug.get(`acme/${name}`)!;
const variant = (slug: string) => catalog.variantsBySlug.get(slug)!;

const anonymous = undefined;
const plain = anAccount();
const betaTester = anAccount({ segments: ['beta'] });
const otherSegment = anAccount({ segments: ['gold'] });
const grantedModel = anAccount({ allowedModels: ['acme/secret'] });
const grantedVariant = anAccount({ allowedModels: ['acme/secret/edit-image'] });
const grantedSegmentModel = anAccount({ allowedModels: ['acme/beta'] });

describe('canSee', () => {
  it.each<[string, CatalogAccount | undefined, string, boolean]>([
    ['anonymous', anonymous, 'open', true],
    ['anonymous', anonymous, 'beta', false],
    ['anonymous', anonymous, 'secret', false],
    ['an account with no segments', plain, 'open', true],
    ['an account with no segments', plain, 'beta', false],
    ['an account with no segments', plain, 'secret', false],
    ['an account in the segment', betaTester, 'beta', true],
    ['an account in the segment', betaTester, 'secret', false],
    ['an account in another segment', otherSegment, 'beta', false],
    ['an account granted the model', grantedModel, 'secret', true],
    ['an account granted one variant', grantedVariant, 'secret', true],
    ['an account granted a segment model by slug', grantedSegmentModel, 'beta', true],
  ])('%s sees acme/%s: %s', (_who, account, name, expected) => {
    expect(canSee(model(name), account)).toBe(expected);
  });

  it.each<[string, CatalogAccount, string, boolean]>([
    ['the model grant', grantedModel, 'acme/secret/text-to-image', true],
    ['the model grant', grantedModel, 'acme/secret/edit-image', true],
    ['the variant grant', grantedVariant, 'acme/secret/edit-image', true],
    ['the variant grant', grantedVariant, 'acme/secret/text-to-image', false],
  ])('with %s, %s is visible: %s', (_grant, account, slug, expected) => {
    expect(canSee(variant(slug), account)).toBe(expected);
    expect(canUse(variant(slug), account)).toBe(expected);
  });
});

describe('resolveForSubmit', () => {
  it.each<[string, CatalogAccount, string, string]>([
    ['a public model by its full slug', plain, 'acme/open/text-to-image', 'acme/open/text-to-image'],
    [
      'a segment model from inside the segment',
      betaTester,
      'acme/beta/text-to-image',
      'acme/beta/text-to-image',
    ],
    ['a private model that was granted', grantedModel, 'acme/secret/edit-image', 'acme/secret/edit-image'],
  ])('%s resolves', (_name, account, slug, expected) => {
    expect(resolveForSubmit(catalog, slug, account).slug).toBe(expected);
  });

  it.each<[string, CatalogAccount, string, string, number]>([
    ['an unknown slug', plain, 'acme/nothing/text-to-image', 'MODEL_NOT_FOUND', 404],
    ['an unknown capability', plain, 'acme/open/text-to-video', 'MODEL_NOT_FOUND', 404],
    ['a malformed slug', plain, 'acme', 'MODEL_NOT_FOUND', 404],
    ['a segment model from outside the segment', otherSegment, 'acme/beta', 'MODEL_NOT_FOUND', 404],
    ['a private model not granted', plain, 'acme/secret', 'MODEL_ACCESS_DENIED', 403],
    [
      'a private variant outside a variant grant',
      grantedVariant,
      'acme/secret/text-to-image',
      'MODEL_ACCESS_DENIED',
      403,
    ],
    [
      'a segment model outside the segment by its full slug',
      otherSegment,
      'acme/beta/text-to-image',
      'MODEL_NOT_FOUND',
      404,
    ],
    ['a public model by its two-part slug', plain, 'acme/open', 'MODEL_NOT_FOUND', 404],
    ['a granted model by its two-part slug', grantedModel, 'acme/secret', 'MODEL_NOT_FOUND', 404],
  ])('%s is %s (%i)', (_name, account, slug, code, status) => {
    let thrown: unknown;
    try {
      resolveForSubmit(catalog, slug, account);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code, status, errors: [{ pointer: '/model' }] });
  });

  it.each<[string, CatalogAccount, string, string]>([
    [
      'a two-part slug',
      plain,
      'acme/open',
      'acme/open is a model; name one of its capability variants: acme/open/text-to-image',
    ],
    [
      'a capability the model lacks',
      plain,
      'acme/open/text-to-video',
      'model acme/open has no variant acme/open/text-to-video; its variants: acme/open/text-to-image',
    ],
    // Only the variants this account may use: a variant grant shows that one.
    [
      'a two-part slug under a variant grant',
      grantedVariant,
      'acme/secret',
      'acme/secret is a model; name one of its capability variants: acme/secret/edit-image',
    ],
    [
      'a segment model from outside it',
      otherSegment,
      'acme/beta',
      'model acme/beta does not exist or is unavailable',
    ],
  ])('%s: the message names what can be submitted, and nothing hidden', (_name, account, slug, message) => {
    expect(() => resolveForSubmit(catalog, slug, account)).toThrow(expect.objectContaining({ message }));
  });
});
