/**
 * Fixture builders for the catalog's tests: catalog documents as plain objects, turned
 * into YAML sources and built the way ConfigMaps are.
 */
import { stringify } from 'yaml';
import type { Discount } from '../k8s/types.ts';
import type { Catalog } from './catalog.ts';
import { buildCatalog, type CatalogSource } from './load.ts';
import type { CatalogAccount } from './visibility.ts';

type Doc = Record<string, unknown>;

export function aProvider(id = 'acme', overrides: Doc = {}): Doc {
  return {
    id,
    name: `${id} name`,
    description: `${id} description`,
    logoUrl: `https://${id}.example/logo.svg`,
    website: `https://${id}.example`,
    color: '#112233',
    ...overrides,
  };
}

export function aCategory(id = 'image', overrides: Doc = {}): Doc {
  return { id, name: `${id} name`, description: `${id} description`, ...overrides };
}

export function aGroup(id: string, order: number, overrides: Doc = {}): Doc {
  return {
    id,
    displayName: `${id} display`,
    label: id.slice(0, 3).toUpperCase(),
    icon: 'icon',
    color: '#445566',
    order,
    ...overrides,
  };
}

/** An image-like variant: prompt required, resolution 1k/2k/4k (default 1k) priced 1/1/1.8. */
export function aVariant(overrides: Doc = {}): Doc {
  return {
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['prompt'],
      properties: {
        prompt: { type: 'string', minLength: 1 },
        resolution: { type: 'string', enum: ['1k', '2k', '4k'], default: '1k' },
      },
    },
    pricing: {
      baseCredits: 134000,
      unit: 'per_generation',
      multipliers: { resolution: { '1k': 1, '2k': 1, '4k': 1.8 } },
    },
    runtime: { type: 'builtin', maxConcurrency: 2, typicalSeconds: 30 },
    ...overrides,
  };
}

/** A fluent model builder: `aModel('acme', 'm').private().withVariant('edit-image').build()`. */
export class ModelBuilder {
  private readonly doc: Doc;
  private readonly variants: Record<string, Doc> = {};

  constructor(provider: string, name: string) {
    this.doc = {
      provider,
      name,
      displayName: `${name} display`,
      description: `${name} description`,
      category: 'image',
      versions: ['v1.0'],
    };
  }

  with(fields: Doc): this {
    Object.assign(this.doc, fields);
    return this;
  }

  withVariant(capability: string, variant: Doc = aVariant()): this {
    this.variants[capability] = variant;
    return this;
  }

  segment(...segments: string[]): this {
    return this.with({ visibility: 'segment', segments });
  }

  private(): this {
    return this.with({ visibility: 'private' });
  }

  build(): Doc {
    const variants = Object.keys(this.variants).length > 0 ? this.variants : { 'text-to-image': aVariant() };
    return { ...this.doc, variants };
  }
}

export function aModel(provider = 'acme', name = 'model'): ModelBuilder {
  return new ModelBuilder(provider, name);
}

/** A ConfigMap-like source holding one YAML document per data key. */
export function source(name: string, ...docs: Doc[]): CatalogSource {
  return { name, documents: Object.fromEntries(docs.map((doc, i) => [`doc-${i}.yaml`, stringify(doc)])) };
}

/** Builds a catalog or fails the test with every problem. */
export function catalogOf(...sources: CatalogSource[]): Catalog {
  const result = buildCatalog(sources);
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.source}: ${e.message}`).join('\n'));
  return result.catalog;
}

/** One source with acme and the image category plus the given models. */
export function catalogWith(...models: Array<ModelBuilder | Doc>): Catalog {
  const built = models.map((m) => (m instanceof ModelBuilder ? m.build() : m));
  return catalogOf(source('catalog', { providers: [aProvider()], categories: [aCategory()], models: built }));
}

export function anAccount(
  spec: { segments?: string[]; allowedModels?: string[]; discount?: Discount } = {},
): CatalogAccount {
  return { spec };
}
