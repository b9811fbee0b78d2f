import type { V1Node, V1NodeCondition, V1NodeStatus } from '@kubernetes/client-node';
import type { Kube } from './client.ts';
import { MERGE_PATCH } from './client.ts';
import { isAlreadyExists } from './errors.ts';

export interface NodeOptions {
  name: string;
  /** How many Pods the node takes (capacity and allocatable `pods`). */
  pods: number;
  /** Capacity in Kubernetes quantities; defaults describe a modest machine. */
  cpu?: string;
  memory?: string;
  labels?: Record<string, string>;
  /** The node's InternalIP. */
  address?: string;
}

/**
 * The status a healthy kubelet reports: capacity, allocatable, addresses, and the
 * conditions with Ready=True. `since` is when the conditions took their current values.
 */
export function nodeStatus(options: NodeOptions, now: Date, since: Date): V1NodeStatus {
  const resources = {
    pods: String(options.pods),
    cpu: options.cpu ?? '8',
    memory: options.memory ?? '16Gi',
    'ephemeral-storage': '100Gi',
  };
  const condition = (type: string, status: string, reason: string, message: string): V1NodeCondition => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: since,
  });
  return {
    capacity: resources,
    allocatable: resources,
    addresses: [
      { type: 'InternalIP', address: options.address ?? '127.0.0.1' },
      { type: 'Hostname', address: options.name },
    ],
    conditions: [
      condition(
        'MemoryPressure',
        'False',
        'KubeletHasSufficientMemory',
        'kubelet has sufficient memory available',
      ),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
  };
}

/**
 * Creates the Node, or updates the labels and status of an existing one (a restarted
 * agent, another agent sharing the name), as a kubelet registers itself. Nodes are
 * cluster-scoped: the connection's namespace plays no part.
 */
export async function registerNode(kube: Kube, options: NodeOptions, now = new Date()): Promise<V1Node> {
  const labels = {
    'kubernetes.io/hostname': options.name,
    'kubernetes.io/os': 'linux',
    ...options.labels,
  };
  const status = nodeStatus(options, now, now);
  try {
    return await kube.core.createNode({
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: options.name, labels }, status },
    });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await kube.core.patchNode({ name: options.name, body: { metadata: { labels } } }, MERGE_PATCH);
  return patchNodeStatus(kube, options.name, status);
}

/** Reports the node alive: its status with fresh heartbeat times. */
export async function heartbeatNode(
  kube: Kube,
  options: NodeOptions,
  since: Date,
  now = new Date(),
): Promise<V1Node> {
  return patchNodeStatus(kube, options.name, nodeStatus(options, now, since));
}

async function patchNodeStatus(kube: Kube, name: string, status: V1NodeStatus): Promise<V1Node> {
  return kube.core.patchNodeStatus({ name, body: { status } }, MERGE_PATCH);
}
