/**
 * The catalog: providers, models and their capability variants, read from ConfigMaps,
 * validated, merged and indexed; pricing, input preparation, visibility and the response
 * shapes of the catalog endpoints. Everything here is pure; watching ConfigMaps and
 * serving HTTP live elsewhere. docs/catalog.md describes the format.
 */
export { type Catalog, findVariant, type Model, resolveVersion, type Variant } from './catalog.ts';
export { prepareInput } from './input.ts';
export { listApiModels, listProviderModels } from './listing.ts';
export {
  buildCatalog,
  type CatalogBuildResult,
  type CatalogProblem,
  type CatalogSource,
  DEFAULT_CATALOG_PATH,
  loadDefaultCatalog,
  readDefaultCatalogSource,
} from './load.ts';
export { applyDiscount, type CostComponent, type CostEstimate, price } from './pricing.ts';
export type * from './schema.ts';
export type { CatalogFilter } from './select.ts';
export type * from './view-types.ts';
export {
  getCatalogModel,
  getCatalogProvider,
  listCapabilityGroups,
  listCatalogModels,
  listCatalogModelsJson,
  listCatalogProviders,
  listCategories,
} from './views.ts';
export { type CatalogAccount, canSee, canUse, resolveForSubmit } from './visibility.ts';
