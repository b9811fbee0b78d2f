/**
 * Checks across declarations, once everything is merged: what a model names must exist,
 * and every input the inputSchema accepts must be priceable.
 *
 * Capability groups are display metadata keyed by capability and are deliberately not a
 * reference: a variant whose capability has no group is valid (the spec lists no group for
 * edit-image), and so is a group no variant uses yet (the default catalog ships
 * image-to-video with no model).
 */
import { BUILTIN_CAPABILITIES, isBuiltinCapability } from './builtin.ts';
import type { MergedCatalog } from './merge.ts';
import type { CatalogProblem } from './parse.ts';
import type { InputSchema, Pricing } from './schema.ts';

export function checkReferences(merged: MergedCatalog): CatalogProblem[] {
  const providers = new Set(merged.providers.map((p) => p.value.id));
  const categories = new Set(merged.categories.map((c) => c.value.id));
  const problems: CatalogProblem[] = [];
  for (const model of merged.models) {
    const report = (path: string, message: string) =>
      problems.push({ source: model.source, message: `${model.key}: ${model.path}${path}: ${message}` });
    const { provider, category, variants } = model.value;
    if (!providers.has(provider))
      report('.provider', `provider "${provider}" is not declared in any catalog ConfigMap`);
    if (!categories.has(category))
      report('.category', `category "${category}" is not declared in any catalog ConfigMap`);
    for (const [capability, variant] of Object.entries(variants)) {
      // Listed, priced and charged, then every job would fail at its worker.
      if (variant.runtime.type === 'builtin' && !isBuiltinCapability(capability))
        report(
          `.variants.${capability}.runtime`,
          `the builtin runtime runs ${BUILTIN_CAPABILITIES.join(', ')}, not "${capability}": give this variant an http runtime`,
        );
      for (const message of pricingProblems(variant.pricing, variant.inputSchema)) {
        report(`.variants.${capability}.pricing`, message);
      }
    }
  }
  return problems;
}

/**
 * Pricing must cover the inputSchema: a field it prices must be an input field, and every
 * value the schema admits for it (enum values, booleans, the default) needs a factor, so
 * that a valid job can never fail to be priced.
 */
export function pricingProblems(pricing: Pricing, schema: InputSchema): string[] {
  const problems: string[] = [];
  if (pricing.perSecond) {
    const field = pricing.perSecond.field;
    const property = schema.properties[field];
    if (!property) problems.push(`perSecond.field "${field}" is not a property of the inputSchema`);
    else if (property.default === undefined && !schema.required?.includes(field)) {
      problems.push(`perSecond.field "${field}" needs a default or must be required in the inputSchema`);
    }
  }
  for (const [field, table] of Object.entries(pricing.multipliers)) {
    const property = schema.properties[field];
    if (!property) {
      problems.push(`multipliers.${field}: "${field}" is not a property of the inputSchema`);
      continue;
    }
    const admitted = [...(property.enum ?? [])];
    if (property.type === 'boolean' && !property.enum) admitted.push(true, false);
    // A default outside its enum is refused on its own (compile.ts): it admits nothing.
    if (
      property.default !== undefined &&
      (!property.enum || property.enum.some((v) => v === property.default))
    )
      admitted.push(property.default);
    const missing = [...new Set(admitted.map(String))].filter((value) => !Object.hasOwn(table, value));
    if (missing.length > 0) {
      problems.push(
        `multipliers.${field}: no factor for ${missing.map((v) => `"${v}"`).join(', ')}, which the inputSchema accepts`,
      );
    }
  }
  return problems;
}
