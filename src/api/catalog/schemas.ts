import { z } from 'zod';
import { CATALOG_EXAMPLES as EX } from './examples.ts';

/**
 * Response shapes of the catalog endpoints (spec 2.6 to 2.12), for the OpenAPI document
 * and the contract tests. The values themselves are built in src/catalog/views.ts; a test
 * checks every answer against these.
 */
const Pricing = z.strictObject({
  baseCredits: z
    .number()
    .int()
    .nonnegative()
    .describe('micro-cents per generation, or per second of the perSecond field when that is present'),
  defaultCostMicroCents: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      "what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price",
    ),
  unit: z.literal('per_generation').describe('a job is charged once, for the whole generation'),
  perSecond: z
    .strictObject({ field: z.string() })
    .optional()
    .describe('for a model priced by the second: the input field whose seconds multiply baseCredits'),
});
const ProviderRef = z.strictObject({ id: z.string(), name: z.string(), logoUrl: z.string() });

export const CatalogModelItem = z
  .strictObject({
    slug: z.string(),
    provider: ProviderRef,
    category: z.string(),
    capability: z.string(),
    pricing: Pricing,
    tags: z.array(z.string()),
    ratings: z.strictObject({ average: z.number(), count: z.number().int() }),
  })
  .meta({ examples: [EX.item] });

export const CatalogModelDetail = z
  .strictObject({
    slug: z.string(),
    provider: ProviderRef,
    name: z.string(),
    description: z.string(),
    category: z.string(),
    capability: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the job input'),
    pricing: Pricing,
    siblings: z.array(z.strictObject({ slug: z.string(), capability: z.string() })),
  })
  .meta({ examples: [EX.detail] });

const providerBase = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  logoUrl: z.string(),
  website: z.string(),
  color: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
};

export const CatalogProviderItem = z
  .strictObject({
    ...providerBase,
    modelCount: z.number().int().nonnegative(),
  })
  .meta({ examples: [EX.provider] });

export const CatalogProviderDetail = z
  .strictObject({
    ...providerBase,
    models: z.array(
      z.strictObject({
        slug: z.string(),
        name: z.string(),
        description: z.string(),
        category: z.string(),
        capability: z.string(),
        pricing: Pricing,
        tags: z.array(z.string()),
      }),
    ),
  })
  .meta({ examples: [EX.providerDetail] });

export const CapabilityGroup = z
  .strictObject({
    id: z.string(),
    displayName: z.string(),
    label: z.string(),
    icon: z.string(),
    color: z.string(),
    order: z.number(),
  })
  .meta({ examples: [EX.group] });

export const Category = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    modelCount: z.number().int().nonnegative(),
  })
  .meta({ examples: [EX.category] });

const modelBase = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  currentVersion: z.string().regex(/^v\d+\.\d+$/),
  versionCount: z.number().int().positive(),
  currentVersionPricing: Pricing,
};

export const ApiModelList = z
  .strictObject({
    models: z.array(z.strictObject({ ...modelBase, providerId: z.string(), providerName: z.string() })),
  })
  .meta({ examples: [EX.apiModels] });

export const ProviderModelList = z
  .strictObject({
    provider: z.strictObject({ ...providerBase, categories: z.array(z.string()), isActive: z.boolean() }),
    models: z.array(z.strictObject(modelBase)),
  })
  .meta({ examples: [EX.providerModels] });

/**
 * The catalog lists' filters. Other query parameters are ignored, as every other read of
 * the api ignores them (a cache-buster, a `limit` the spec does not define): the spec shows
 * no parameters, so a client adding one must not break.
 */
export const CatalogFilterQuery = z.object({
  category: z.string().max(63).optional(),
  capability: z.string().max(63).optional(),
  provider: z.string().max(63).optional(),
});
