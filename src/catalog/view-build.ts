import { AppError } from '../errors.ts';
import type { Variant } from './catalog.ts';
import { publishedInputSchema } from './input.ts';
import { type PricedVariant, price } from './pricing.ts';
import type { Provider } from './schema.ts';
import type { PricingView, ProviderFields, VariantViews } from './view-types.ts';

/** The fields of a provider every provider answer shows. */
export function providerFields(provider: Provider): ProviderFields {
  const { id, name, description, logoUrl, website, color } = provider;
  return { id, name, description, logoUrl, website, color };
}

/**
 * Computes every response shape of a variant once, when the catalog is built, so listing
 * 1,000 models is a filter over ready objects. They are frozen because every request shares
 * them: a handler that wants to change one must copy it.
 */
export function buildVariantViews(variant: Omit<Variant, 'views'>): VariantViews {
  const { model } = variant;
  const { spec, provider } = model;
  const pricing: PricingView = {
    baseCredits: variant.pricing.baseCredits,
    defaultCostMicroCents: defaultCost(variant),
    unit: 'per_generation',
    ...(variant.pricing.perSecond ? { perSecond: { field: variant.pricing.perSecond.field } } : {}),
  };
  const providerRef = { id: provider.id, name: provider.name, logoUrl: provider.logoUrl };
  const scoped = {
    id: variant.slug,
    name: spec.displayName,
    description: spec.description,
    category: model.category.id,
    currentVersion: model.currentVersion,
    versionCount: model.versionCount,
    currentVersionPricing: pricing,
  };
  const item = {
    slug: variant.slug,
    provider: providerRef,
    category: model.category.id,
    capability: variant.capability,
    pricing,
    tags: spec.tags,
    ratings: { average: spec.ratings.average, count: spec.ratings.count },
  };
  // The pricing fields after the two prices, with the object's closing brace.
  const { baseCredits: _b, defaultCostMicroCents: _d, ...pricingRest } = pricing;
  return deepFreeze({
    item,
    itemJson: {
      head: `${JSON.stringify({ slug: item.slug, provider: item.provider, category: item.category, capability: item.capability }).slice(0, -1)},"pricing":{"baseCredits":`,
      mid: ',"defaultCostMicroCents":',
      tail: `,${JSON.stringify(pricingRest).slice(1)},"tags":${JSON.stringify(item.tags)},"ratings":${JSON.stringify(item.ratings)}}`,
    },
    detail: {
      slug: variant.slug,
      provider: providerRef,
      name: spec.displayName,
      description: spec.description,
      category: model.category.id,
      capability: variant.capability,
      inputSchema: publishedInputSchema(variant.inputSchema),
      pricing,
    },
    sibling: { slug: variant.slug, capability: variant.capability },
    providerModel: {
      slug: variant.slug,
      name: spec.displayName,
      description: spec.description,
      category: model.category.id,
      capability: variant.capability,
      pricing,
      tags: spec.tags,
    },
    apiModel: {
      id: scoped.id,
      providerId: provider.id,
      providerName: provider.name,
      name: scoped.name,
      description: scoped.description,
      category: scoped.category,
      currentVersion: scoped.currentVersion,
      versionCount: scoped.versionCount,
      currentVersionPricing: pricing,
    },
    providerScopedModel: scoped,
  });
}

/**
 * The price of a job that sends no optional field, through the one pricing function (so it
 * is what submit charges for that input). A discount is applied on top per caller.
 */
export function defaultCost(variant: PricedVariant, discount?: Parameters<typeof price>[2]): number | null {
  try {
    return price(variant, {}, discount).estimatedCostMicroCents;
  } catch (err) {
    // A per-second model whose duration has no default: there is no default job to price.
    if (err instanceof AppError && err.code === 'INVALID_INPUT') return null;
    throw err;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
