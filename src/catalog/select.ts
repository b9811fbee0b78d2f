/**
 * Choosing what a caller sees and pricing it for them: the two steps every catalog listing
 * shares.
 */
import type { Catalog, Variant } from './catalog.ts';
import { applyDiscount, hasDiscount } from './pricing.ts';
import { defaultCost } from './view-build.ts';
import type { PricingView } from './view-types.ts';
import { type CatalogAccount, canSee } from './visibility.ts';

/** Query filters of the list endpoints (`?category=&capability=&provider=`); all must match. */
export interface CatalogFilter {
  category?: string | undefined;
  capability?: string | undefined;
  provider?: string | undefined;
}

/** The catalog's variants the caller sees that pass the filter, in catalog order. */
export function visibleVariants(
  catalog: Catalog,
  account: CatalogAccount | undefined,
  filter: CatalogFilter,
): Variant[] {
  return catalog.variants.filter(
    (v) =>
      (!filter.category || v.model.category.id === filter.category) &&
      (!filter.capability || v.capability === filter.capability) &&
      (!filter.provider || v.model.provider.id === filter.provider) &&
      canSee(v, account),
  );
}

/**
 * Re-prices a variant's precomputed views for the account's discount (the same object when
 * there is none).
 */
export function repricer(
  account: CatalogAccount | undefined,
): <T extends object>(view: T, variant: Variant) => T {
  const discount = account?.spec.discount;
  if (!hasDiscount(discount)) return (view) => view;
  const baseCredits = discounter(account);
  const defaultCost = defaultCoster(account);
  return (view, variant) => {
    const key = 'pricing' in view ? 'pricing' : 'currentVersionPricing';
    const pricing = (view as Record<string, unknown>)[key] as PricingView;
    const repriced: PricingView = {
      ...pricing,
      baseCredits: baseCredits(pricing.baseCredits),
      defaultCostMicroCents: defaultCost(variant),
    };
    return { ...view, [key]: repriced };
  };
}

/**
 * The account's price of each variant's default job. The discount is applied to the exact
 * amount by the pricing function, as submit does, not to the rounded undiscounted price.
 */
export function defaultCoster(account: CatalogAccount | undefined): (variant: Variant) => number | null {
  const discount = account?.spec.discount;
  if (!discount || !hasDiscount(discount))
    return (variant) => variant.views.item.pricing.defaultCostMicroCents;
  const key = String(discount.percentage);
  return (variant) => {
    let byDiscount = discountedDefaults.get(variant);
    if (!byDiscount || byDiscount.size >= 64) {
      byDiscount = new Map();
      discountedDefaults.set(variant, byDiscount);
    }
    let cost = byDiscount.get(key);
    if (cost === undefined) {
      cost = defaultCost(variant, discount);
      byDiscount.set(key, cost);
    }
    return cost;
  };
}

/**
 * Discounted default prices by variant and percentage: a listing prices 1,000 variants, and
 * accounts share few discounts. Variants are immutable and go with their catalog.
 */
const discountedDefaults = new WeakMap<Variant, Map<string, number | null>>();

/** The account's price for a base price; variants share few, so each is discounted once per call. */
export function discounter(account: CatalogAccount | undefined): (baseCredits: number) => number {
  const discount = account?.spec.discount;
  if (!hasDiscount(discount)) return (baseCredits) => baseCredits;
  const done = new Map<number, number>();
  return (baseCredits) => {
    let discounted = done.get(baseCredits);
    if (discounted === undefined) {
      discounted = applyDiscount(baseCredits, discount);
      done.set(baseCredits, discounted);
    }
    return discounted;
  };
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
