/**
 * The API-key model listings (spec 4.13, 4.14; shapes 2.11, 2.12). One entry per capability
 * variant, `id` = three-part slug: that id is what a client passes as `model` to submit,
 * and `currentVersionPricing` differs per capability (edit-image and text-to-image of one
 * model can be priced apart), which one entry per model could not say. Versions belong to
 * the model, so sibling variants share currentVersion and versionCount; a version does not
 * carry its own price, so currentVersionPricing is the variant's pricing.
 */
import { AppError } from '../errors.ts';
import type { Catalog } from './catalog.ts';
import { type CatalogFilter, repricer, visibleVariants } from './select.ts';
import { providerFields } from './view-build.ts';
import type { ApiModel, ApiProvider, ProviderScopedModel } from './view-types.ts';
import type { CatalogAccount } from './visibility.ts';

/** GET /v1/models: `{models}`, the variants the key's account sees, priced for it. */
export function listApiModels(
  catalog: Catalog,
  account: CatalogAccount,
  filter: CatalogFilter = {},
): { models: ApiModel[] } {
  const reprice = repricer(account);
  return { models: visibleVariants(catalog, account, filter).map((v) => reprice(v.views.apiModel, v)) };
}

/**
 * GET /v1/providers/{providerId}/models: the provider and its variants the account sees
 * (narrowed by the filter). The provider's `categories` (sorted) and `isActive` describe all
 * the variants the account sees, whatever the filter; `isActive` is false when every one of
 * them is paused (runtime maxConcurrency 0), i.e. jobs would be accepted but not run.
 * @throws AppError NOT_FOUND for an unknown provider or one with nothing the account sees.
 */
export function listProviderModels(
  catalog: Catalog,
  providerId: string,
  account: CatalogAccount,
  filter: Omit<CatalogFilter, 'provider'> = {},
): { provider: ApiProvider; models: ProviderScopedModel[] } {
  const provider = catalog.providersById.get(providerId);
  const all = provider ? visibleVariants(catalog, account, { provider: providerId }) : [];
  if (!provider || all.length === 0) throw new AppError('NOT_FOUND', `provider ${providerId} not found`);
  const listed = all.filter(
    (v) =>
      (!filter.category || v.model.category.id === filter.category) &&
      (!filter.capability || v.capability === filter.capability),
  );
  const reprice = repricer(account);
  return {
    provider: {
      ...providerFields(provider),
      categories: [...new Set(all.map((v) => v.model.category.id))].sort(),
      isActive: all.some((v) => v.runtime.maxConcurrency > 0),
    },
    models: listed.map((v) => reprice(v.views.providerScopedModel, v)),
  };
}
