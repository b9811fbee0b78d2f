/**
 * The public catalog endpoints (spec 4.7 to 4.12) as pure functions of the catalog and the
 * caller. Each returns exactly the body to send. "Model" counts and lists are of capability
 * variants (three-part slugs), the same unit the model list shows, so a provider's
 * `modelCount` equals the length of `GET /v1/catalog/models?provider=<id>`.
 */
import { AppError } from '../errors.ts';
import { type Catalog, findVariant } from './catalog.ts';
import {
  type CatalogFilter,
  countBy,
  defaultCoster,
  discounter,
  repricer,
  visibleVariants,
} from './select.ts';
import { providerFields } from './view-build.ts';
import type {
  CapabilityGroupView,
  CatalogModelDetail,
  CatalogModelItem,
  CatalogProviderDetail,
  CatalogProviderItem,
  CategoryView,
} from './view-types.ts';
import { type CatalogAccount, canSee } from './visibility.ts';

/** GET /v1/catalog/models: the variants the caller sees, priced for the caller. */
export function listCatalogModels(
  catalog: Catalog,
  account?: CatalogAccount,
  filter: CatalogFilter = {},
): readonly CatalogModelItem[] {
  if (!account && !filter.category && !filter.capability && !filter.provider) return catalog.publicItems;
  const reprice = repricer(account);
  return visibleVariants(catalog, account, filter).map((v) => reprice(v.views.item, v));
}

/**
 * {@link listCatalogModels} already serialized, for the busiest endpoint there is: the
 * anonymous list is serialized once per catalog, any other is joined from per-variant JSON
 * precomputed around the one number a discount changes.
 */
export function listCatalogModelsJson(
  catalog: Catalog,
  account?: CatalogAccount,
  filter: CatalogFilter = {},
): string {
  if (!account && !filter.category && !filter.capability && !filter.provider) return catalog.publicItemsJson;
  const baseCredits = discounter(account);
  const defaultCost = defaultCoster(account);
  const parts = visibleVariants(catalog, account, filter).map((v) => {
    const { head, mid, tail } = v.views.itemJson;
    return head + baseCredits(v.views.item.pricing.baseCredits) + mid + defaultCost(v) + tail;
  });
  return `[${parts.join(',')}]`;
}

/**
 * GET /v1/catalog/models/{slug}, two- or three-part slug. `siblings` lists the model's other
 * variants the caller can see.
 * @throws AppError MODEL_NOT_FOUND for an unknown slug or one the caller cannot see.
 */
export function getCatalogModel(
  catalog: Catalog,
  slug: string,
  account?: CatalogAccount,
): CatalogModelDetail {
  const variant = findVariant(catalog, slug);
  if (!variant || !canSee(variant, account)) {
    throw new AppError('MODEL_NOT_FOUND', `model ${slug} does not exist or is unavailable`);
  }
  const siblings = variant.model.variants
    .filter((other) => other !== variant && canSee(other, account))
    .map((other) => other.views.sibling);
  return { ...repricer(account)(variant.views.detail, variant), siblings };
}

/** GET /v1/catalog/providers: providers with at least one variant the caller sees (and the filter keeps). */
export function listCatalogProviders(
  catalog: Catalog,
  account?: CatalogAccount,
  filter: CatalogFilter = {},
): CatalogProviderItem[] {
  const counts = countBy(visibleVariants(catalog, account, filter), (v) => v.model.provider.id);
  return catalog.providers
    .filter((p) => counts.has(p.id))
    .map((p) => ({ ...providerFields(p), modelCount: counts.get(p.id) ?? 0 }));
}

/**
 * GET /v1/catalog/providers/{id}.
 * @throws AppError NOT_FOUND for an unknown provider or one with no variant the caller sees
 *   (the list leaves those out too, so the two agree).
 */
export function getCatalogProvider(
  catalog: Catalog,
  id: string,
  account?: CatalogAccount,
): CatalogProviderDetail {
  const provider = catalog.providersById.get(id);
  const variants = provider ? visibleVariants(catalog, account, { provider: id }) : [];
  if (!provider || variants.length === 0) throw new AppError('NOT_FOUND', `provider ${id} not found`);
  const reprice = repricer(account);
  return {
    ...providerFields(provider),
    models: variants.map((v) => reprice(v.views.providerModel, v)),
  };
}

/** GET /v1/catalog/capability-groups, ascending `order`. */
export function listCapabilityGroups(catalog: Catalog): readonly CapabilityGroupView[] {
  return catalog.capabilityGroups;
}

/** GET /v1/catalog/categories: every category, with the number of variants the caller sees in it. */
export function listCategories(catalog: Catalog, account?: CatalogAccount): CategoryView[] {
  const counts = countBy(visibleVariants(catalog, account, {}), (v) => v.model.category.id);
  return catalog.categories.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    modelCount: counts.get(c.id) ?? 0,
  }));
}
