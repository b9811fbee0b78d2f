import type { ValidateFunction } from 'ajv';
import type { Catalog, Variant } from './catalog.ts';
import { createInputCompiler, prepareInput } from './input.ts';
import type { InputSchema } from './schema.ts';

/**
 * Input an estimate may price: like submit's (same coercions, defaults and checks, so a
 * value submit refuses is refused here with the same INVALID_INPUT), except that fields
 * the schema requires may be missing, since a client prices a job before it has a prompt.
 * Each variant's relaxed schema is compiled on first use, with one compiler per catalog so
 * a reload drops them all.
 */
export function preparePartialInput(
  catalog: Catalog,
  variant: Variant,
  input: unknown,
): Record<string, unknown> {
  let validate = validators.get(variant);
  if (!validate) {
    let compile = compilers.get(catalog);
    if (!compile) {
      compile = createInputCompiler();
      compilers.set(catalog, compile);
    }
    validate = compile(withoutRequired(variant.inputSchema));
    validators.set(variant, validate);
  }
  return prepareInput({ inputSchema: variant.inputSchema, validateInput: validate }, input);
}

const compilers = new WeakMap<Catalog, (schema: InputSchema) => ValidateFunction>();
const validators = new WeakMap<Variant, ValidateFunction>();

/** The schema without its top-level `required` (and `$id`, which may be compiled once per compiler). */
function withoutRequired(schema: InputSchema): InputSchema {
  const { required: _required, $id: _id, ...rest } = schema as InputSchema & { $id?: string };
  return rest as InputSchema;
}
