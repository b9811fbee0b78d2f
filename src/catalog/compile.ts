/**
 * Turning merged, checked declarations into the indexed {@link Catalog}: input schemas
 * compiled, references replaced by the objects they name, versions ordered, lookups and
 * response shapes precomputed.
 */
import type { ValidateFunction } from 'ajv';
import { type Catalog, compareVersions, type Model, type Variant } from './catalog.ts';
import { createInputCompiler } from './input.ts';
import type { MergedCatalog } from './merge.ts';
import type { CatalogProblem } from './parse.ts';
import type { InputSchema, VariantSpec } from './schema.ts';
import { buildVariantViews } from './view-build.ts';

/** Compiles every variant's inputSchema with one fresh ajv instance for this catalog. */
export function compileInputSchemas(merged: MergedCatalog): {
  validators: Map<VariantSpec, ValidateFunction>;
  problems: CatalogProblem[];
} {
  const compile = createInputCompiler();
  // Catalogs repeat one schema across many models; ajv caches by object identity, not content.
  const byText = new Map<string, ValidateFunction>();
  const defaultsByText = new Map<string, string[]>();
  const validators = new Map<VariantSpec, ValidateFunction>();
  const problems: CatalogProblem[] = [];
  for (const model of merged.models) {
    for (const [capability, variant] of Object.entries(model.value.variants)) {
      try {
        const text = JSON.stringify(variant.inputSchema);
        const validate = byText.get(text) ?? compile(variant.inputSchema);
        byText.set(text, validate);
        validators.set(variant, validate);
        const defaults = defaultsByText.get(text) ?? defaultProblems(variant.inputSchema, compile);
        defaultsByText.set(text, defaults);
        for (const message of defaults) {
          problems.push({
            source: model.source,
            message: `${model.key}: ${model.path}.variants.${capability}.inputSchema.${message}`,
          });
        }
      } catch (error) {
        problems.push({
          source: model.source,
          message: `${model.key}: ${model.path}.variants.${capability}.inputSchema: does not compile: ${(error as Error).message}`,
        });
      }
    }
  }
  return { validators, problems };
}

/**
 * A field's `default` must be a value the field accepts: it is what a job that leaves the
 * field out runs with (and is priced at), so one outside the field's own schema makes the
 * job nobody chose fail, blaming its client for a field it never sent.
 */
function defaultProblems(schema: InputSchema, compile: (schema: InputSchema) => ValidateFunction): string[] {
  const problems: string[] = [];
  for (const [field, property] of Object.entries(schema.properties)) {
    if (property.default === undefined) continue;
    // Without its own default: ajv refuses one at a schema's root (it would never apply).
    const { default: value, ...rest } = property;
    const validate = compile(rest as unknown as InputSchema);
    if (validate(structuredClone(value))) continue;
    const why = (validate.errors ?? []).map(
      (e) =>
        `${e.message}${e.params && 'allowedValues' in e.params ? `: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` : ''}`,
    );
    problems.push(
      `properties.${field}.default: ${JSON.stringify(property.default)} is not a value the field accepts (${why.join('; ') || 'refused'})`,
    );
  }
  return problems;
}

/**
 * Builds the catalog. Expects declarations that passed {@link compileInputSchemas} and the
 * reference checks: a dangling reference here is a bug, and throws.
 */
export function indexCatalog(merged: MergedCatalog, validators: Map<VariantSpec, ValidateFunction>): Catalog {
  const providersById = new Map(merged.providers.map((p) => [p.value.id, p.value]));
  const categoriesById = new Map(merged.categories.map((c) => [c.value.id, c.value]));
  const models: Model[] = [];
  const variants: Variant[] = [];
  for (const { value: spec, source } of merged.models) {
    const versions = [...spec.versions].sort((a, b) => compareVersions(a.version, b.version));
    const stable = versions.filter((v) => v.stable);
    const model = {
      slug: `${spec.provider}/${spec.name}`,
      spec,
      provider: required(providersById.get(spec.provider), spec.provider),
      category: required(categoriesById.get(spec.category), spec.category),
      variants: [] as Variant[],
      defaultVariant: undefined as unknown as Variant,
      versions,
      currentVersion: required(stable.at(-1), 'stable version').version,
      versionCount: versions.length,
      source,
    } satisfies Model;
    for (const [capability, variantSpec] of Object.entries(spec.variants)) {
      const partial = {
        slug: `${model.slug}/${capability}`,
        capability,
        model,
        inputSchema: variantSpec.inputSchema,
        pricing: variantSpec.pricing,
        runtime: variantSpec.runtime,
        validateInput: required(validators.get(variantSpec), `validator of ${model.slug}/${capability}`),
      };
      const variant: Variant = { ...partial, views: buildVariantViews(partial) };
      model.variants.push(variant);
      variants.push(variant);
    }
    model.defaultVariant = required(
      model.variants.find((v) => v.capability === (spec.defaultCapability ?? model.variants[0]?.capability)),
      'default variant',
    );
    models.push(model);
  }
  const publicItems = Object.freeze(
    variants.filter((v) => v.model.spec.visibility === 'public').map((v) => v.views.item),
  );
  return {
    providers: merged.providers.map((p) => p.value),
    categories: merged.categories.map((c) => c.value),
    capabilityGroups: Object.freeze(
      merged.capabilityGroups
        .map((g) => Object.freeze(g.value))
        .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id)),
    ),
    models,
    variants,
    providersById,
    modelsBySlug: new Map(models.map((m) => [m.slug, m])),
    variantsBySlug: new Map(variants.map((v) => [v.slug, v])),
    publicItems,
    publicItemsJson: JSON.stringify(publicItems),
  };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`catalog invariant broken: ${what} is missing`);
  return value;
}
