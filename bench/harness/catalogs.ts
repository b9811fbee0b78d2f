import { stringify } from 'yaml';
import { CATALOG_LABEL } from '../../src/catalog/watcher.ts';
import type { ConfigMap } from '../../src/k8s/configmaps.ts';

/** A paused variant (maxConcurrency 0): submits measure the api alone, nothing ever starts. */
export const PAUSED_MODEL = 'bench/paused/text-to-image';
/** A variant with room for every job at once, for the end-to-end run. */
export const INSTANT_MODEL = 'bench/instant/text-to-image';

const promptSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 4000 },
    resolution: { type: 'string', enum: ['1k', '2k', '4k'], default: '1k' },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
  },
};

const pricing = {
  baseCredits: 134000,
  unit: 'per_generation',
  multipliers: { resolution: { '1k': 1, '2k': 1, '4k': 1.8 } },
};

function model(name: string, maxConcurrency: number, extra: Record<string, unknown> = {}) {
  return {
    provider: 'bench',
    name,
    displayName: `Bench ${name}`,
    description: 'A variant the benchmark submits to.',
    category: 'image',
    tags: ['bench'],
    versions: ['v1.0'],
    variants: {
      'text-to-image': {
        inputSchema: promptSchema,
        pricing,
        runtime: { type: 'builtin', maxConcurrency, timeoutSeconds: 600, typicalSeconds: 1 },
      },
    },
    ...extra,
  };
}

const provider = {
  id: 'bench',
  name: 'Benchmark',
  description: 'Variants of the benchmark.',
  logoUrl: 'https://genjobs.io/logos/genjobs.svg',
  website: 'https://genjobs.io',
  color: '#111827',
};

function configMap(name: string, documents: Record<string, string>): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { [CATALOG_LABEL]: 'true', 'app.kubernetes.io/part-of': 'genjobs-bench' } },
    data: documents,
  };
}

/** Added beside the default catalog (whose `image` category it uses): a paused and an instant variant. */
export function benchCatalogConfigMap(): ConfigMap {
  const doc = { providers: [provider], models: [model('paused', 0), model('instant', 100_000)] };
  return configMap('genjobs-catalog-bench', {
    'bench.yaml': stringify(doc, { aliasDuplicateObjects: false }),
  });
}

/**
 * A catalog of `count` models (one variant each) on its own, in one ConfigMap: ten
 * providers, varied tags, ratings and prices, the shape a large real catalog has.
 */
export function generatedCatalog(count: number): {
  configMaps: ConfigMap[];
  documents: Record<string, string>;
} {
  const providers = Array.from({ length: 10 }, (_, i) => ({
    ...provider,
    id: `p${i}`,
    name: `Provider ${i}`,
  }));
  const models = Array.from({ length: count }, (_, i) => ({
    ...model(`m${String(i).padStart(4, '0')}`, 4),
    provider: `p${i % 10}`,
    description: `Generated model number ${i}, for the catalog benchmark.`,
    tags: ['bench', i % 2 ? 'fast' : 'quality', `t${i % 7}`],
    ratings: { average: (i % 50) / 10, count: i * 3 },
  }));
  for (const [i, m] of models.entries()) {
    const variant = m.variants['text-to-image'] as { pricing: typeof pricing };
    variant.pricing = { ...pricing, baseCredits: 100_000 + i * 100 };
  }
  const yaml = (v: unknown) => stringify(v, { aliasDuplicateObjects: false });
  const documents: Record<string, string> = {
    'shared.yaml': yaml({
      providers,
      categories: [{ id: 'image', name: 'Image', description: 'Still images.' }],
      capabilityGroups: [
        {
          id: 'text-to-image',
          displayName: 'Text to Image',
          label: 'T2I',
          icon: 'image',
          color: '#2563EB',
          order: 1,
        },
      ],
    }),
  };
  // One ConfigMap per 250 models (a ConfigMap holds at most 1 MiB), as a platform team
  // splitting a big catalog by provider or team would.
  const configMaps = [configMap('genjobs-catalog-shared', { 'shared.yaml': documents['shared.yaml']! })];
  for (let part = 0; part * 250 < count; part++) {
    const key = `models-${part}.yaml`;
    documents[key] = yaml({ models: models.slice(part * 250, (part + 1) * 250) });
    configMaps.push(configMap(`genjobs-catalog-generated-${part}`, { [key]: documents[key]! }));
  }
  return { configMaps, documents };
}
