import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiextensionsV1Api, loadAllYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import type { Kube } from './client.ts';
import { isAlreadyExists, isNotFound } from './errors.ts';

/** The CRDs in a directory of YAML files (crds/ is the one source of them). */
export async function readCrds(dir: string): Promise<V1CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const crds: V1CustomResourceDefinition[] = [];
  for (const f of files) {
    // loadAllYaml maps wire names (x-kubernetes-*, enum) onto the client's model fields;
    // plain YAML objects would lose them when the client serializes the request.
    for (const obj of loadAllYaml(
      await readFile(join(dir, f), 'utf8'),
    ) as Array<V1CustomResourceDefinition | null>) {
      if (obj?.kind === 'CustomResourceDefinition') crds.push(obj);
    }
  }
  return crds;
}

/** Creates or updates each CRD, then waits until the apiserver serves them (Established). */
export async function applyCrds(
  kube: Kube,
  crds: V1CustomResourceDefinition[],
  timeoutMs = 30_000,
): Promise<void> {
  const api = kube.kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const current = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: current.metadata?.resourceVersion } },
      });
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    for (;;) {
      const current = await api.readCustomResourceDefinition({ name });
      const established = current.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (established) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Creates the namespace when it does not exist. */
export async function ensureNamespace(kube: Kube, name: string): Promise<void> {
  try {
    await kube.core.readNamespace({ name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await kube.core.createNamespace({ body: { metadata: { name } } });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}
