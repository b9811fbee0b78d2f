import type { Kube } from '../../k8s/client.ts';
import { isNotFound } from '../../k8s/errors.ts';

/**
 * Kubelet's CreateContainerConfigError: the Pod refers to something missing (a Secret, a
 * key). The container is not started; the Pod stays Pending and the agent retries.
 */
export class ContainerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainerConfigError';
  }
}

/** The keys and values of a Secret or ConfigMap, as bytes. */
export type Data = ReadonlyMap<string, Buffer>;

/** Reads the Secrets and ConfigMaps a Pod refers to; undefined when one does not exist. */
export interface Sources {
  secret(name: string): Promise<Data | undefined>;
  configMap(name: string): Promise<Data | undefined>;
}

/**
 * Sources read from the apiserver (the agent holds admin credentials, as a kubelet may read
 * what its Pods refer to), each object once per container start.
 */
export function kubeSources(kube: Kube): Sources {
  const cache = new Map<string, Promise<Data | undefined>>();
  const once = (key: string, read: () => Promise<Data>) => {
    let hit = cache.get(key);
    if (!hit) {
      hit = read().catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
      cache.set(key, hit);
    }
    return hit;
  };
  const namespace = kube.namespace;
  return {
    secret: (name) =>
      once(`secret/${name}`, async () => {
        const secret = await kube.core.readNamespacedSecret({ name, namespace });
        return decoded(secret.data ?? {}, 'base64');
      }),
    configMap: (name) =>
      once(`configmap/${name}`, async () => {
        const cm = await kube.core.readNamespacedConfigMap({ name, namespace });
        return new Map([...decoded(cm.data ?? {}, 'utf8'), ...decoded(cm.binaryData ?? {}, 'base64')]);
      }),
  };
}

function decoded(values: Record<string, string>, encoding: BufferEncoding): Map<string, Buffer> {
  return new Map(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, encoding)]));
}

/** A Secret or ConfigMap by kind, honouring `optional` as kubelet does. */
export async function readSource(
  sources: Sources,
  kind: 'Secret' | 'ConfigMap',
  name: string | undefined,
  optional: boolean | undefined,
): Promise<Data | undefined> {
  if (!name) throw new ContainerConfigError(`a ${kind} reference without a name`);
  const data = kind === 'Secret' ? await sources.secret(name) : await sources.configMap(name);
  if (data === undefined && !optional) {
    throw new ContainerConfigError(`${kind.toLowerCase()} "${name}" not found`);
  }
  return data;
}
