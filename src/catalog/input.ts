/**
 * Turning a job's `input` into what the model runs with: the two shapes the spec shows
 * for some fields are brought to the one the variant's inputSchema declares, defaults are
 * filled in, and everything is checked against the schema, reporting every failing field.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { RE2JS } from 're2js';
import { AppError, type FieldError } from '../errors.ts';
import type { Variant } from './catalog.ts';
import { capFieldErrors, checkInputBounds } from './input-limits.ts';
import type { InputProperty, InputSchema } from './schema.ts';

// ajv-formats is CommonJS with `exports.default`; under nodenext the default import is the module object.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

/**
 * The RegExp engine of input schemas (`pattern`, `patternProperties`): RE2 (re2js, in plain
 * JavaScript), which matches in time linear in the input whatever the pattern. JavaScript's
 * own engine backtracks: a catalog pattern such as `^(a|a)*b$` or `^(\w|\d)+$` held the
 * api's event loop for seconds on a 30-character input, and no check at load finds every
 * such pattern. RE2's syntax is ECMAScript's without lookaround and backreferences; a
 * pattern using them, or one that does not parse, is refused when the catalog loads (the
 * catalog is reported invalid and the last good one stays).
 */
const linearRegExp = Object.assign(
  (pattern: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern);
    } catch (err) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} does not compile: ${(err as Error).message} (patterns are RE2: no lookaround or backreferences)`,
      );
    }
    // JSON Schema's `pattern` matches anywhere in the string, as RE2's test does. ajv keeps
    // one compiled pattern per toString(): each needs its own.
    return { test: (text: string) => re.test(text), toString: () => `/${pattern}/` };
  },
  // What ajv's standalone code (which genjobs does not generate) would call.
  { code: 'linearRegExp' },
);

/**
 * A compiler for input schemas. Make one per catalog build: ajv keeps every schema it
 * compiled for the life of the instance, so a shared instance would grow on each reload.
 * Unknown keywords and formats are errors (they are typos in a catalog); type strictness
 * is off because a field may legitimately allow several types.
 * @throws Error with ajv's message when a schema does not compile.
 */
export function createInputCompiler(): (schema: InputSchema) => ValidateFunction {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    logger: false,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return (schema) => ajv.compile(schema);
}

/**
 * Validates and normalizes a job input for a variant; returns a new object (the argument is
 * not modified) with defaults applied and the accepted alternative shapes normalized:
 * - a numeric string ("8") where the schema wants a number, "true"/"false" where it wants
 *   a boolean; a number or boolean where it wants one of an enum of strings;
 * - a single `image` URL where the schema declares `image_urls` (and no `image`) becomes
 *   `image_urls: [image]`; errors about it still point at `/input/image`.
 * @throws AppError INVALID_INPUT whose `errors` hold one JSON pointer (into the request
 *   body, so under `/input`) per failing field, the first 20 of them (input-limits.ts), or
 *   one for an input too deep or too large to run.
 */
export function prepareInput(
  variant: Pick<Variant, 'inputSchema' | 'validateInput'>,
  input: unknown,
): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new AppError('INVALID_INPUT', 'input must be an object', {
      errors: [{ pointer: '/input', message: 'must be an object' }],
    });
  }
  checkInputBounds(input);
  const data: Record<string, unknown> = structuredClone(input as Record<string, unknown>);
  const properties = variant.inputSchema.properties;
  const aliasable = takesImageAlias(properties);
  const aliased = aliasable && Object.hasOwn(data, 'image');
  if (aliased) {
    if (Object.hasOwn(data, 'image_urls')) {
      throw new AppError('INVALID_INPUT', 'send either input.image or input.image_urls, not both', {
        errors: [{ pointer: '/input/image', message: 'not allowed together with image_urls' }],
      });
    }
    data.image_urls = [data.image];
    delete data.image;
  }
  for (const [field, value] of Object.entries(data)) {
    // hasOwn: a client's "__proto__" or "constructor" field must not find Object.prototype.
    const property = Object.hasOwn(properties, field) ? properties[field] : undefined;
    if (property) data[field] = coerce(value, property);
  }
  if (variant.validateInput(data)) return data;
  const { errors, summary } = capFieldErrors(
    toFieldErrors(
      variant.validateInput.errors ?? [],
      // image, one URL in place of image_urls, is a field a client may send too.
      Object.keys(properties).flatMap((k) =>
        k === 'image_urls' && aliasable ? [k, 'image (one URL)'] : [k],
      ),
      { aliasable, aliased },
    ),
  );
  throw new AppError('INVALID_INPUT', `input does not match the model's inputSchema: ${summary}`, { errors });
}

/** Whether a single `image` is taken for a schema's `image_urls`: it declares that and no `image` of its own. */
function takesImageAlias(properties: InputSchema['properties']): boolean {
  return Object.hasOwn(properties, 'image_urls') && !Object.hasOwn(properties, 'image');
}

const NUMERIC = /^-?[0-9]+(\.[0-9]+)?$/;
/** {@link NUMERIC} as a published `pattern`: a client's engine may backtrack, so no nested repetition. */
const NUMERIC_PATTERN = '^-?[0-9]+$|^-?[0-9]+\\.[0-9]+$';
/** The numeric strings that are whole numbers ("8", "8.0"): what an integer property takes. */
const INTEGER_PATTERN = '^-?[0-9]+$|^-?[0-9]+\\.0+$';

/** A string schema's way to refuse a blank value (`pattern: "\\S"`, one visible character), as a catalog writes it. */
const BLANK_REFUSED = '\\S';

function coerce(value: unknown, property: InputProperty): unknown {
  const types = declaredTypes(property);
  if (types.size === 0 || accepts(types, value)) return value;
  if (typeof value === 'string') {
    if ((types.has('number') || types.has('integer')) && NUMERIC.test(value)) return Number(value);
    if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  }
  // Only for a choice among strings ("4"/"6"/"8"): turning a free-text field's 8 into "8" would hide a client bug.
  if ((typeof value === 'number' || typeof value === 'boolean') && types.has('string') && property.enum) {
    return String(value);
  }
  return value;
}

/**
 * The inputSchema as the catalog shows it (spec 4.8, 4.10): the declared schema widened by
 * what {@link prepareInput} also takes, so an input that passes it is one the api accepts, in
 * either of the shapes the spec shows (2.13's table writes `duration: "8"` and
 * `has_sound: "true"`, its catalog example a number; its upload walk-through sends `image`).
 * Per top-level property, as prepareInput coerces: a numeric string where a number is
 * declared, "true"/"false" where a boolean is, a number or boolean that spells one of an enum
 * of strings; and a single `image` beside a declared `image_urls`, never both. The declared
 * type stays first in `type`, the canonical one. A numeric string's bounds (minimum,
 * maximum) are the api's to check: JSON Schema applies them to numbers only.
 */
export function publishedInputSchema(schema: InputSchema): InputSchema {
  const properties: Record<string, InputProperty> = {};
  for (const [field, property] of Object.entries(schema.properties)) properties[field] = widened(property);
  const published: InputSchema = { ...schema, properties };
  if (!takesImageAlias(schema.properties)) return published;
  const items = (schema.properties.image_urls?.items ?? { type: 'string' }) as InputProperty;
  properties.image = {
    ...items,
    description: 'One address sent instead of image_urls: the same as image_urls with this one item.',
  };
  // Either one, never both; a required image_urls may be given as image.
  const required = schema.required ?? [];
  const either = required.includes('image_urls')
    ? { oneOf: [{ required: ['image_urls'] }, { required: ['image'] }] }
    : { not: { required: ['image', 'image_urls'] } };
  // An empty `required` is refused by draft-04 validators (OpenAPI 3.0's generators among them).
  const { required: _declared, ...rest } = published;
  const stillRequired = required.filter((f) => f !== 'image_urls');
  return {
    ...rest,
    ...(stillRequired.length > 0 ? { required: stillRequired } : {}),
    allOf: [...((schema.allOf as unknown[] | undefined) ?? []), either],
  };
}

/** A property as {@link publishedInputSchema} shows it: the other spellings {@link coerce} turns into its values. */
function widened(property: InputProperty): InputProperty {
  const types = declaredTypes(property);
  const extraTypes = new Set<string>();
  const extraValues: unknown[] = [];
  let pattern: string | undefined;
  const numeric = types.has('number') || types.has('integer');
  if (!types.has('string') && (numeric || types.has('boolean'))) {
    extraTypes.add('string');
    if (property.enum) {
      for (const v of property.enum)
        if (typeof v === 'number' || typeof v === 'boolean') extraValues.push(String(v));
    } else if (numeric) {
      const signed = types.has('number') ? NUMERIC_PATTERN : INTEGER_PATTERN;
      // No sign where none is allowed (its other bounds are still the api's to check).
      const digits =
        typeof property.minimum === 'number' && property.minimum >= 0 ? signed.replaceAll('-?', '') : signed;
      pattern = types.has('boolean') ? `${digits}|^true$|^false$` : digits;
    } else {
      extraValues.push(true, false, 'true', 'false');
    }
  }
  if (types.has('string') && property.enum) {
    for (const v of property.enum) {
      if (typeof v !== 'string') continue;
      // Only a spelling coerce() turns back into this string: 4 for "4", never for "4.0".
      if (NUMERIC.test(v) && String(Number(v)) === v) {
        extraValues.push(Number(v));
        extraTypes.add('number');
      } else if (v === 'true' || v === 'false') {
        extraValues.push(v === 'true');
        extraTypes.add('boolean');
      }
    }
  }
  if (extraTypes.size === 0 && extraValues.length === 0) return property;
  const declared = property.type === undefined ? undefined : [property.type].flat();
  return {
    ...property,
    ...(declared
      ? { type: [...declared, ...[...extraTypes].filter((t) => !declared.includes(t as never))] }
      : {}),
    ...(extraValues.length ? { enum: [...(property.enum ?? []), ...extraValues] } : {}),
    ...(pattern && property.pattern === undefined ? { pattern } : {}),
  } as InputProperty;
}

/** The JSON types a property accepts: its `type`, else the types of its enum values. */
function declaredTypes(property: InputProperty): Set<string> {
  if (property.type !== undefined)
    return new Set(Array.isArray(property.type) ? property.type : [property.type]);
  return new Set((property.enum ?? []).map((v) => (v === null ? 'null' : typeof v)));
}

function accepts(types: Set<string>, value: unknown): boolean {
  if (typeof value === 'number')
    return types.has('number') || (types.has('integer') && Number.isInteger(value));
  if (value === null) return types.has('null');
  if (Array.isArray(value)) return types.has('array');
  return types.has(typeof value);
}

function toFieldErrors(
  raw: ErrorObject[],
  known: string[],
  alias: { aliasable: boolean; aliased: boolean },
): FieldError[] {
  const byPointer = new Map<string, string[]>();
  for (const error of raw) {
    let pointer = `/input${error.instancePath}`;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      pointer = `${pointer}/${pointerToken(missing)}`;
      message =
        missing === 'image_urls' && alias.aliasable
          ? 'is required (or send one URL as image)'
          : 'is required';
    } else if (error.keyword === 'additionalProperties') {
      pointer = `${pointer}/${pointerToken(String(error.params.additionalProperty))}`;
      message =
        error.instancePath === ''
          ? `is not a known input field (known: ${known.join(', ')})`
          : 'is not allowed here';
    } else if (error.keyword === 'pattern' && error.params.pattern === BLANK_REFUSED) {
      message = 'must not be blank';
    } else if (error.keyword === 'type' && error.params.type === 'boolean') {
      // Not ajv's "must be boolean": "true" was taken (coerced), so "TRUE" needs a clearer word.
      message = 'must be true or false';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (alias.aliased && pointer.startsWith('/input/image_urls')) pointer = '/input/image';
    const messages = byPointer.get(pointer) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPointer.set(pointer, messages);
  }
  return [...byPointer].map(([pointer, messages]) => ({ pointer, message: messages.join('; ') }));
}

/** The JSON pointer of a top-level input field in the request body (`/input/<field>`, escaped). */
export function inputPointer(field: string): string {
  return `/input/${pointerToken(field)}`;
}

function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
