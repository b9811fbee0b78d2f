import type { V1Secret } from '@kubernetes/client-node';
import type { Kube } from './client.ts';
import { isNotFound } from './errors.ts';

export type Secret = V1Secret;

/** The Secret, or undefined when it does not exist. `namespace` defaults to the connection's. */
export async function getSecret(
  kube: Kube,
  name: string,
  namespace = kube.namespace,
): Promise<Secret | undefined> {
  try {
    return await kube.core.readNamespacedSecret({ name, namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Creates the Secret; fails with AlreadyExists (409) when the name is taken. */
export async function createSecret(kube: Kube, secret: Secret, namespace = kube.namespace): Promise<Secret> {
  const body = { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { ...secret.metadata, namespace } };
  return kube.core.createNamespacedSecret({ namespace, body });
}

/** Replaces the Secret; compare-and-swap on `metadata.resourceVersion` (409 Conflict when it moved). */
export async function replaceSecret(kube: Kube, secret: Secret, namespace = kube.namespace): Promise<Secret> {
  const name = secret.metadata?.name;
  if (!name) throw new Error('Secret without metadata.name');
  const body = { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { ...secret.metadata, namespace } };
  return kube.core.replaceNamespacedSecret({ name, namespace, body });
}

/** Deletes the Secret; false when there was none. */
export async function deleteSecret(kube: Kube, name: string, namespace = kube.namespace): Promise<boolean> {
  try {
    await kube.core.deleteNamespacedSecret({ name, namespace });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
