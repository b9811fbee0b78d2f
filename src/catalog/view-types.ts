/**
 * The response shapes of the catalog endpoints, field for field as the spec's tables give
 * them (service-interface.md 2.6 to 2.12). Everywhere in the API a "model" entry is one
 * capability variant, named by its three-part slug: that slug is what submit takes, and
 * pricing and input differ per variant.
 */
import type { InputSchema, Ratings } from './schema.ts';

/**
 * `{baseCredits, unit}` of the spec: the variant's base price after the caller's discount if
 * any, and `unit` always the spec's `per_generation` (a job is charged once, for the whole
 * generation). Two additions clients may ignore: `defaultCostMicroCents`, what a job with the
 * input schema's defaults costs (a true price to show for a per-second model), or null when
 * the defaults alone do not make a priceable job; and, for a model priced by the second,
 * `perSecond`: the input field whose seconds multiply `baseCredits`, then a rate.
 */
export interface PricingView {
  baseCredits: number;
  defaultCostMicroCents: number | null;
  unit: 'per_generation';
  perSecond?: { field: string };
}

export interface ProviderRef {
  id: string;
  name: string;
  logoUrl: string;
}

/** 2.6, an item of GET /v1/catalog/models. */
export interface CatalogModelItem {
  slug: string;
  provider: ProviderRef;
  category: string;
  capability: string;
  pricing: PricingView;
  tags: string[];
  ratings: Ratings;
}

export interface Sibling {
  slug: string;
  capability: string;
}

/** 2.7, GET /v1/catalog/models/{slug}. `name` is the display name. */
export interface CatalogModelDetail {
  slug: string;
  provider: ProviderRef;
  name: string;
  description: string;
  category: string;
  capability: string;
  inputSchema: InputSchema;
  pricing: PricingView;
  siblings: Sibling[];
}

/** A provider as every provider answer shows it. */
export interface ProviderFields {
  id: string;
  name: string;
  description: string;
  logoUrl: string;
  website: string;
  color: string;
}

/** 2.8, an item of GET /v1/catalog/providers. */
export interface CatalogProviderItem extends ProviderFields {
  modelCount: number;
}

/** One entry of `models` in 2.8's provider detail. */
export interface ProviderModelItem {
  slug: string;
  name: string;
  description: string;
  category: string;
  capability: string;
  pricing: PricingView;
  tags: string[];
}

/** 2.8, GET /v1/catalog/providers/{id}. */
export interface CatalogProviderDetail extends ProviderFields {
  models: ProviderModelItem[];
}

/** 2.9 */
export interface CapabilityGroupView {
  id: string;
  displayName: string;
  label: string;
  icon: string;
  color: string;
  order: number;
}

/** 2.10; modelCount counts the variants the caller can see. */
export interface CategoryView {
  id: string;
  name: string;
  description: string;
  modelCount: number;
}

/** 2.11 as the provider-scoped listing (4.14) shows it: without providerId/providerName. */
export interface ProviderScopedModel {
  id: string;
  name: string;
  description: string;
  category: string;
  currentVersion: string;
  versionCount: number;
  currentVersionPricing: PricingView;
}

/** 2.11, an item of GET /v1/models. `id` is the three-part slug. */
export interface ApiModel {
  id: string;
  providerId: string;
  providerName: string;
  name: string;
  description: string;
  category: string;
  currentVersion: string;
  versionCount: number;
  currentVersionPricing: PricingView;
}

/** 2.12 */
export interface ApiProvider extends ProviderFields {
  categories: string[];
  isActive: boolean;
}

/** Shapes computed once per variant when the catalog is built, shared (frozen) by every request. */
export interface VariantViews {
  readonly item: Readonly<CatalogModelItem>;
  /** `item` as JSON split around the two prices: `head + baseCredits + mid + defaultCostMicroCents + tail`. */
  readonly itemJson: { readonly head: string; readonly mid: string; readonly tail: string };
  readonly detail: Readonly<Omit<CatalogModelDetail, 'siblings'>>;
  /** This variant as an entry of its siblings' `siblings`. */
  readonly sibling: Readonly<Sibling>;
  readonly providerModel: Readonly<ProviderModelItem>;
  readonly apiModel: Readonly<ApiModel>;
  readonly providerScopedModel: Readonly<ProviderScopedModel>;
}
