import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import { type Kube, MERGE_PATCH } from './client.ts';
import { isNotFound, statusCode } from './errors.ts';
import { Informer } from './informer.ts';

export type {
  V1ConfigMap as ConfigMap,
  V1Container as Container,
  V1ContainerState as ContainerState,
  V1ContainerStatus as ContainerStatus,
  V1EnvVar as EnvVar,
  V1Node as Node,
  V1NodeCondition as NodeCondition,
  V1NodeStatus as NodeStatus,
  V1Pod as Pod,
  V1PodCondition as PodCondition,
  V1PodSpec as PodSpec,
  V1PodStatus as PodStatus,
  V1Secret as Secret,
  V1Volume as Volume,
  V1VolumeMount as VolumeMount,
} from '@kubernetes/client-node';

type Pod = V1Pod;
type PodStatus = NonNullable<V1Pod['status']>;

/** The phases of a Pod (`status.phase`); Succeeded and Failed are final. */
export const POD_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export type PodPhase = (typeof POD_PHASES)[number];

/** Whether the Pod has finished for good (its phase is Succeeded or Failed). */
export function isPodFinished(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * A timestamp of a typed object as a Date. Objects from a watch (and so from every
 * informer cache) carry RFC 3339 strings where client-node's types say Date; this reads both.
 */
export function timeOf(value: Date | string | undefined | null): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The REST path of the Pods of a namespace, for watches. */
export function podsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/pods`;
}

/** Creates a Pod in the connection's namespace (whatever namespace its metadata names); the Pod cache brings it back. */
export async function createPod(kube: Kube, pod: Pod): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    ...pod,
    metadata: { ...pod.metadata, namespace: kube.namespace },
  };
  // The controller's hot path: the lean client, and the answer (the whole Pod) is not read.
  await kube.http.send('POST', podsPath(kube.namespace), { body });
}

/** Reads a Pod from the apiserver (typed: timestamps are Dates); undefined when it does not exist. */
export async function getPod(kube: Kube, name: string): Promise<Pod | undefined> {
  try {
    return await kube.core.readNamespacedPod({ name, namespace: kube.namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export interface DeletePodOptions {
  /** Delete only this incarnation of the name, never a successor created since. */
  uid?: string;
  /** Seconds the kubelet gives the containers to stop; 0 removes the object at once. */
  gracePeriodSeconds?: number;
}

/** Deletes a Pod; returns false when it was already gone (or the uid no longer matches). */
export async function deletePod(kube: Kube, name: string, options: DeletePodOptions = {}): Promise<boolean> {
  try {
    // DeleteOptions go in the query unless there is a precondition, which has no query form:
    // a DELETE with a body costs more (http.ts). With a body the apiserver reads only the body.
    const grace = options.gracePeriodSeconds;
    await kube.http.send('DELETE', `${podsPath(kube.namespace)}/${encodeURIComponent(name)}`, {
      ...(options.uid
        ? { body: { gracePeriodSeconds: grace, preconditions: { uid: options.uid } } }
        : { query: { gracePeriodSeconds: grace } }),
    });
    return true;
  } catch (err) {
    // A uid precondition that fails means the Pod we meant is gone: a successor holds the name.
    if (isNotFound(err) || (options.uid && statusCode(err) === 409)) return false;
    throw err;
  }
}

/**
 * Binds a Pod to a node, as the scheduler does (the apiserver also sets PodScheduled=True).
 * With a uid, only that incarnation of the name is bound. A Pod that is already bound
 * answers 409 Conflict.
 */
export async function bindPod(kube: Kube, name: string, nodeName: string, uid?: string): Promise<void> {
  await kube.core.createNamespacedPodBinding({
    name,
    namespace: kube.namespace,
    body: {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, uid },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    },
  });
}

/** Conditions on a write: the Pod's uid (never touch a successor) and its resourceVersion (CAS). */
export interface PodPreconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * JSON merge patch of a Pod's status subresource: the fields given replace the current
 * ones (lists such as `conditions` and `containerStatuses` wholesale). A uid that is not the
 * Pod's makes the write fail (422, uid is immutable); a resourceVersion makes it
 * compare-and-swap (409 when the Pod changed).
 */
export async function patchPodStatus(
  kube: Kube,
  name: string,
  status: PodStatus,
  preconditions: PodPreconditions = {},
): Promise<Pod> {
  const { uid, resourceVersion } = preconditions;
  const body = {
    ...(uid || resourceVersion ? { metadata: { uid, resourceVersion } } : {}),
    status,
  };
  return kube.core.patchNamespacedPodStatus({ name, namespace: kube.namespace, body }, MERGE_PATCH);
}

export interface PodInformerOptions {
  labelSelector?: string;
  log: Logger;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * A list+watch cache of the Pods of the connection's namespace. Listed Pods are put in wire
 * form like watched ones, so every cached Pod reads the same way: timestamps are RFC 3339
 * strings at run time (read them with {@link timeOf}).
 */
export function podInformer(kube: Kube, options: PodInformerOptions): Informer<Pod> {
  const { namespace } = kube;
  return new Informer<Pod>(kube, {
    path: podsPath(namespace),
    labelSelector: options.labelSelector,
    log: options.log,
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    list: async () => {
      const page = await kube.core.listNamespacedPod({ namespace, labelSelector: options.labelSelector });
      return {
        // A Pod's field names are its wire names, so a JSON round trip gives the wire form.
        items: page.items.map((p) => JSON.parse(JSON.stringify(p)) as Pod),
        metadata: { resourceVersion: page.metadata?.resourceVersion },
      };
    },
  });
}
