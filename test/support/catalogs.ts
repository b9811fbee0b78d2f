import { CATALOG_LABEL } from '../../src/catalog/watcher.ts';
import type { Kube } from '../../src/k8s/client.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';

/**
 * Adds (or replaces) a catalog ConfigMap holding one model, `genjobs/NAME/text-to-image`, with
 * a prompt-only input, a per-job price and `slots` of capacity: 0 pauses it, so its jobs wait
 * in pending (never admitted, still cancellable) until it is given a slot.
 */
export function applyImageModel(
  kube: Kube,
  model: { name: string; displayName: string; baseCredits: number; slots: number },
): Promise<void> {
  return applyConfigMap(kube, {
    metadata: { name: `catalog-${model.name}`, labels: { [CATALOG_LABEL]: 'true' } },
    data: {
      [`${model.name}.yaml`]: `models:
  - provider: genjobs
    name: ${model.name}
    displayName: ${model.displayName}
    category: image
    versions: [v1.0]
    variants:
      text-to-image:
        inputSchema: { type: object, properties: { prompt: { type: string } } }
        pricing: { baseCredits: ${model.baseCredits}, unit: per_generation }
        runtime: { type: builtin, maxConcurrency: ${model.slots}, typicalSeconds: 5 }
`,
    },
  });
}
