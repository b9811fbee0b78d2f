import type { ValidateFunction } from 'ajv';
import { AppError } from '../errors.ts';
import type {
  CapabilityGroup,
  Category,
  InputSchema,
  ModelSpec,
  Pricing,
  Provider,
  Runtime,
  Version,
} from './schema.ts';
import type { CatalogModelItem, VariantViews } from './view-types.ts';

/**
 * A model of the compiled catalog: the YAML entry with its references resolved. Model and
 * Variant point at each other (`model.variants[i].model === model`), so neither is JSON.
 */
export interface Model {
  /** Two-part slug `<provider_id>/<model_name>`. */
  readonly slug: string;
  readonly spec: ModelSpec;
  readonly provider: Provider;
  readonly category: Category;
  /** In declaration order. */
  readonly variants: readonly Variant[];
  /** The variant the two-part slug names. */
  readonly defaultVariant: Variant;
  /** Ascending by (major, minor). */
  readonly versions: readonly Version[];
  /** The latest stable version. */
  readonly currentVersion: string;
  readonly versionCount: number;
  /** Name of the ConfigMap that declared the model. */
  readonly source: string;
}

/** One capability of a model: the unit that is listed, priced, validated and run. */
export interface Variant {
  /** Three-part slug `<provider_id>/<model_name>/<capability>`. */
  readonly slug: string;
  readonly capability: string;
  readonly model: Model;
  readonly inputSchema: InputSchema;
  readonly pricing: Pricing;
  readonly runtime: Runtime;
  /** The inputSchema compiled once at load (ajv, with defaults); used by prepareInput. */
  readonly validateInput: ValidateFunction;
  /** Response shapes precomputed at load. */
  readonly views: VariantViews;
}

/**
 * The merged, validated, indexed catalog. Immutable: a reload builds a new one and swaps
 * it in whole, so a request sees one consistent catalog from start to end.
 */
export interface Catalog {
  /** In merge order (ConfigMaps by name, data keys by name, then document order). */
  readonly providers: readonly Provider[];
  readonly categories: readonly Category[];
  /** Ascending `order`, ties by id. */
  readonly capabilityGroups: readonly CapabilityGroup[];
  readonly models: readonly Model[];
  /** Every variant of every model, models in merge order, variants in declaration order. */
  readonly variants: readonly Variant[];
  readonly providersById: ReadonlyMap<string, Provider>;
  readonly modelsBySlug: ReadonlyMap<string, Model>;
  readonly variantsBySlug: ReadonlyMap<string, Variant>;
  /** The list an anonymous caller gets from GET /v1/catalog/models without filters. */
  readonly publicItems: readonly CatalogModelItem[];
  /** `publicItems` serialized, for the busiest request there is. */
  readonly publicItemsJson: string;
}

/**
 * The variant a slug names: three parts name a capability variant, two parts the model's
 * default capability. Visibility is not checked here (see visibility.ts).
 */
export function findVariant(catalog: Catalog, slug: string): Variant | undefined {
  const parts = slug.split('/').length;
  if (parts === 3) return catalog.variantsBySlug.get(slug);
  if (parts === 2) return catalog.modelsBySlug.get(slug)?.defaultVariant;
  return undefined;
}

/** Parses `v<major>.<minor>` for ordering; undefined if it is not that shape. */
export function parseVersion(version: string): [number, number] | undefined {
  const match = /^v(\d+)\.(\d+)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

export function compareVersions(a: string, b: string): number {
  const [aMajor, aMinor] = parseVersion(a) ?? [0, 0];
  const [bMajor, bMinor] = parseVersion(b) ?? [0, 0];
  return aMajor - bMajor || aMinor - bMinor;
}

/**
 * The version a job runs: the latest stable one when none is asked for, otherwise the one
 * asked for, stable or not (a pre-release is reachable by naming it).
 * @throws AppError MODEL_NOT_FOUND for a version the model does not have: the spec's code
 * for a model that is not there (4.1 lists no other), the detail saying which versions are.
 */
export function resolveVersion(model: Model, requested?: string): string {
  if (requested === undefined) return model.currentVersion;
  if (model.versions.some((v) => v.version === requested)) return requested;
  throw new AppError(
    'MODEL_NOT_FOUND',
    `model ${model.slug} has no version "${requested}" (versions: ${model.versions.map((v) => v.version).join(', ')})`,
    { errors: [{ pointer: '/version', message: 'unknown version' }] },
  );
}
