import type { CatalogModelDetail, Estimate } from '../client/types.ts';
import { microCentsText } from '../ledger/dollars.ts';

/** The parts of a JSON Schema the catalog's input schemas use, as far as a reader needs them. */
interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: FieldSchema;
}

interface InputSchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
  allOf?: Array<{ oneOf?: Array<{ required?: string[] }> }>;
  oneOf?: Array<{ required?: string[] }>;
}

/**
 * `genjobs models get`: a model as someone about to run it needs it: what it does, what a
 * job costs, and each input field with its type, choices, default and whether it is needed,
 * written the way `genjobs run --input` takes it.
 */
export function describeModel(model: CatalogModelDetail, asked = model.slug): string {
  const schema = model.inputSchema as InputSchema;
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {});
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  const lines = [
    `${model.slug}  (${model.name}, ${model.category}, ${model.capability})`,
    // A model's slug answers its default variant: say so, since run takes only a variant's.
    ...(asked === model.slug
      ? []
      : [
          `(${asked} is a model: this is its default variant; run and estimate take a variant's slug: ${[
            model.slug,
            ...model.siblings.map((v) => v.slug),
          ].join(', ')})`,
        ]),
    model.description,
    `price: ${priceText(model.pricing)} (genjobs estimate ${model.slug} --input … prices any input)`,
    'input (--input key=value, or key:=json for a list):',
    ...fields.map(([name, field]) => {
      const what = [fieldType(field), required.has(name) ? 'required' : undefined].filter(Boolean).join(', ');
      return `  ${name.padEnd(width)}  ${what}${field.description ? `. ${field.description}` : ''}`;
    }),
    ...alternatives(schema).map(
      (names) => `  ${names.length === 2 ? names.join(' or ') : `one of ${names.join(', ')}`} is required`,
    ),
  ];
  return lines.join('\n');
}

/**
 * A model's price as the model commands print it: `134000 micro-cents per job`, and what a
 * job with the input's defaults costs where that differs (priced by the second, or by a
 * default's multiplier): `200000 micro-cents per second of duration; 2400000 with the defaults`.
 */
export function priceText(pricing: {
  baseCredits: number;
  perSecond?: { field: string };
  defaultCostMicroCents: number | null;
}): string {
  const base = `${pricing.baseCredits} micro-cents ${
    pricing.perSecond ? `per second of ${pricing.perSecond.field}` : 'per job'
  }`;
  const byDefault = pricing.defaultCostMicroCents;
  return byDefault === null || (byDefault === pricing.baseCredits && !pricing.perSecond)
    ? base
    : `${base}; ${byDefault} with the defaults`;
}

/**
 * `genjobs estimate`: what a job would cost, and from what: `2400000 micro-cents ($2.40)`,
 * then each part of the price as the api breaks it down (the base, each multiplied field, a discount).
 */
export function describeEstimate(e: Estimate): string {
  // The discount is a part of its own (negative); what kind and how much is said beside it.
  const d = e.discounted;
  const parts = e.breakdown.map((b): [string, number] => [
    b.component === 'discount' && d ? `discount (${d.type}, ${d.percentage}%)` : b.component,
    b.costMicroCents,
  ]);
  const width = Math.max(0, ...parts.map(([name]) => name.length));
  return [
    microCentsText(e.estimatedCostMicroCents),
    ...parts.map(([name, cost]) => `  ${name.padEnd(width)}  ${String(cost).padStart(12)}`),
  ].join('\n');
}

/** `one of 4, 6, 8 (default 8)`, `string, up to 4000 characters`, `1 to 4 URL items, as a JSON list`. */
function fieldType(field: FieldSchema): string {
  const withDefault = (text: string) =>
    field.default === undefined ? text : `${text} (default ${String(field.default)})`;
  if (field.enum) {
    // A number accepted as a string too ("8" for 8) is one choice to a reader.
    return withDefault(`one of ${[...new Set(field.enum.map(String))].join(', ')}`);
  }
  // ["integer", "string"]: an integer, which may be sent as a string.
  const types = [field.type ?? []].flat();
  const type = (types.length > 1 ? types.filter((t) => t !== 'string') : types)[0] ?? 'value';
  if (type === 'array') {
    const count =
      field.minItems !== undefined && field.maxItems !== undefined
        ? `${field.minItems} to ${field.maxItems} `
        : '';
    return withDefault(`${count}${field.items ? fieldType(field.items) : 'value'} items, as a JSON list`);
  }
  if (field.format) return withDefault(field.format === 'uri' ? 'URL' : field.format);
  if (field.minimum !== undefined && field.maximum !== undefined)
    return withDefault(`${type} from ${field.minimum} to ${field.maximum}`);
  if (type === 'string' && field.maxLength !== undefined)
    return withDefault(`string, up to ${field.maxLength} characters`);
  return withDefault(type);
}

/** Groups of fields of which one must be given (`image_urls` or `image`). */
function alternatives(schema: InputSchema): string[][] {
  const groups = [schema.oneOf, ...(schema.allOf ?? []).map((s) => s.oneOf)];
  return groups.flatMap((oneOf) => {
    const names = (oneOf ?? []).map((s) => s.required ?? []);
    return names.length > 1 && names.every((n) => n.length === 1) ? [names.map((n) => n[0]!)] : [];
  });
}
