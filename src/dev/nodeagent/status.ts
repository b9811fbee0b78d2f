import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodStatus,
} from '../../k8s/pods.ts';

/**
 * Pod statuses as a kubelet (and, for unschedulable Pods, the scheduler) writes them. Pure:
 * the agent decides when, these say what.
 */

/** The node's address, which is also every Pod's: processes run on the host's network. */
export const NODE_IP = '127.0.0.1';

export const DEADLINE_EXCEEDED = 'DeadlineExceeded';
export const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';
export const NODE_LOST = 'NodeLost';
export const NODE_LOST_MESSAGE =
  "the dev node agent restarted while the Pod was on its node; the Pod's process is gone";
export const UNSCHEDULABLE = 'Unschedulable';
export const UNSCHEDULABLE_MESSAGE = '0/1 nodes are available: too many pods';

type ConditionValue = [type: string, status: 'True' | 'False', reason?: string, message?: string];

/** Sets conditions, keeping each one's lastTransitionTime while its status does not change. */
export function withConditions(pod: Pod, now: Date, values: ConditionValue[]): PodCondition[] {
  const existing = pod.status?.conditions ?? [];
  const set = values.map(([type, status, reason, message]): PodCondition => {
    const old = existing.find((c) => c.type === type);
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime: old?.status === status ? (old.lastTransitionTime ?? now) : now,
    };
  });
  return [...existing.filter((c) => !values.some(([type]) => type === c.type)), ...set];
}

/** PodScheduled=False as the scheduler reports a Pod no node has room for; undefined when already so. */
export function unschedulableConditions(pod: Pod, now: Date): PodCondition[] | undefined {
  const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (
    current?.status === 'False' &&
    current.reason === UNSCHEDULABLE &&
    current.message === UNSCHEDULABLE_MESSAGE
  ) {
    return undefined;
  }
  return withConditions(pod, now, [['PodScheduled', 'False', UNSCHEDULABLE, UNSCHEDULABLE_MESSAGE]]);
}

function containerStatus(
  container: Container,
  state: ContainerState,
  running = false,
  id?: string,
): ContainerStatus {
  return {
    name: container.name,
    image: container.image ?? '',
    imageID: '',
    containerID: id,
    ready: running,
    started: running,
    restartCount: 0,
    state,
  };
}

function notReady(pod: Pod, container: Container, now: Date, reason = 'ContainersNotReady'): PodCondition[] {
  const message =
    reason === 'ContainersNotReady' ? `containers with unready status: [${container.name}]` : undefined;
  return withConditions(pod, now, [
    ['PodScheduled', 'True'],
    ['Initialized', 'True'],
    ['ContainersReady', 'False', reason, message],
    ['Ready', 'False', reason, message],
  ]);
}

const placement = { hostIP: NODE_IP, hostIPs: [{ ip: NODE_IP }] };

/** Bound and being set up (volumes, env): Pending, the container waiting in `reason`. */
export function waitingStatus(
  pod: Pod,
  container: Container,
  startTime: Date,
  now: Date,
  reason = 'ContainerCreating',
  message?: string,
): PodStatus {
  return {
    phase: 'Pending',
    ...placement,
    startTime,
    conditions: notReady(pod, container, now),
    containerStatuses: [containerStatus(container, { waiting: { reason, message } })],
  };
}

export function runningStatus(
  pod: Pod,
  container: Container,
  startTime: Date,
  startedAt: Date,
  id: string,
  now: Date,
): PodStatus {
  return {
    phase: 'Running',
    ...placement,
    podIP: NODE_IP,
    podIPs: [{ ip: NODE_IP }],
    startTime,
    conditions: withConditions(pod, now, [
      ['PodScheduled', 'True'],
      ['Initialized', 'True'],
      ['ContainersReady', 'True'],
      ['Ready', 'True'],
    ]),
    containerStatuses: [containerStatus(container, { running: { startedAt } }, true, id)],
  };
}

export interface Termination {
  exitCode: number;
  /** Completed, Error, or StartError when the process could not be started. */
  reason: string;
  message: string;
  startedAt: Date;
  finishedAt: Date;
  containerID?: string;
}

/** The container has ended: Succeeded on exit 0, else Failed; `podFailure` overrides (a deadline). */
export function terminatedStatus(
  pod: Pod,
  container: Container,
  startTime: Date,
  t: Termination,
  now: Date,
  podFailure?: { reason: string; message: string },
): PodStatus {
  const { containerID, ...terminated } = t;
  return {
    phase: t.exitCode === 0 && !podFailure ? 'Succeeded' : 'Failed',
    ...(podFailure ?? {}),
    ...placement,
    startTime,
    conditions: notReady(pod, container, now, 'PodCompleted'),
    containerStatuses: [
      containerStatus(
        container,
        { terminated: { ...terminated, message: t.message || undefined } },
        false,
        containerID,
      ),
    ],
  };
}

/**
 * A Pod failed as a whole: one whose node went away with its processes (`lost`: its
 * containers' fate unknown), or one the agent refuses to run.
 */
export function podFailedStatus(
  pod: Pod,
  now: Date,
  reason: string,
  message: string,
  lost = true,
): PodStatus {
  const containers = lost ? (pod.spec?.containers ?? []) : [];
  return {
    phase: 'Failed',
    reason,
    message,
    conditions: withConditions(pod, now, [
      ['ContainersReady', 'False', 'PodFailed'],
      ['Ready', 'False', 'PodFailed'],
    ]),
    containerStatuses: containers.map((c) =>
      containerStatus(c, {
        terminated: {
          exitCode: 137,
          reason: 'ContainerStatusUnknown',
          message: 'The container could not be located when the pod was terminated',
          finishedAt: now,
        },
      }),
    ),
  };
}
