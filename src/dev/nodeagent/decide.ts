import { isPodFinished, type Pod } from '../../k8s/pods.ts';
import type { ContainerExit } from './process.ts';

/** Why the agent stops a container that is still running. */
export type StopReason = 'DeadlineExceeded' | 'Deleted';

/** What the agent knows about a Pod it has taken on: the kubelet's own memory of it. */
export interface PodRecord {
  uid: string;
  /** The Pod's `status.startTime`: when the agent first took it on. */
  startTime: Date;
  graceSeconds: number;
  /** The container has a process (now or before it exited). */
  started: boolean;
  /** Set while the container cannot be created (a missing Secret): when to try again. */
  retryAt?: number;
  reportedRunning: boolean;
  stopReason?: StopReason;
  termSentAt?: number;
  killSent: boolean;
  exit?: ContainerExit;
  /** The final status has been written. */
  finished: boolean;
}

export type Action =
  | { type: 'none' }
  /** Set the container up and start it (again, after a configuration error). */
  | { type: 'start' }
  /** Running: report it if not done yet, and look again at the deadline. */
  | { type: 'running'; report: boolean; requeueAfterMs?: number }
  | { type: 'wait'; requeueAfterMs: number }
  | { type: 'signal'; signal: 'SIGTERM' | 'SIGKILL'; reason: StopReason; requeueAfterMs: number }
  /** The process exited: write the final status; finalize too if the Pod is being deleted. */
  | { type: 'finish' }
  /** The Pod object is gone (or a successor holds the name): drop the record and local files. */
  | { type: 'release' }
  /** A Pod being deleted that runs nothing here: remove the object (no kubelet will). */
  | { type: 'finalize' }
  /** Bound here by an agent run whose processes are gone. */
  | { type: 'node-lost' }
  /** The cache shows the final status: the record is no longer needed. */
  | { type: 'forget' };

export interface DecideInput {
  /** The Pod from the cache, if it exists. */
  pod: Pod | undefined;
  record: PodRecord | undefined;
  nodeName: string;
  /** The Pod was bound here before this agent run started. */
  orphan: boolean;
  now: number;
}

/**
 * What one reconcile of a Pod does next, from the cached Pod and the agent's record of it,
 * in the order a kubelet's pod worker weighs them: a vanished Pod first, then an exited
 * process, a deletion, the active deadline, and only then the normal course.
 */
export function decide({ pod, record, nodeName, orphan, now }: DecideInput): Action {
  if (record && pod?.metadata?.uid !== record.uid) {
    if (record.started && !record.exit) return stop(record, 'Deleted', record.graceSeconds, now);
    return { type: 'release' };
  }
  if (!pod || pod.spec?.nodeName !== nodeName) return { type: 'none' };
  const deleting = Boolean(pod.metadata?.deletionTimestamp);
  // A deletion with no grace period left is the apiserver's to finish: it stamps the Pod
  // (the update the watch shows) and removes it at once. A kubelet confirms only a graceful
  // one; confirming this too raced the removal for a 404 (one per finished worker Pod).
  const finalize: Action = { type: pod.metadata?.deletionGracePeriodSeconds === 0 ? 'none' : 'finalize' };
  if (!record) {
    if (deleting) return finalize;
    if (isPodFinished(pod)) return { type: 'none' };
    return orphan ? { type: 'node-lost' } : { type: 'start' };
  }
  if (record.finished) {
    if (deleting) return finalize;
    // Until then the cache may still show an earlier status, which must not start it again.
    return isPodFinished(pod) ? { type: 'forget' } : { type: 'none' };
  }
  if (!record.started) {
    if (deleting) return finalize;
    const wait = (record.retryAt ?? now) - now;
    return wait > 0 ? { type: 'wait', requeueAfterMs: wait } : { type: 'start' };
  }
  if (record.exit) return { type: 'finish' };
  if (deleting) {
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? record.graceSeconds;
    return stop(record, record.stopReason ?? 'Deleted', grace, now);
  }
  if (record.stopReason) return stop(record, record.stopReason, record.graceSeconds, now);
  const seconds = pod.spec?.activeDeadlineSeconds;
  if (seconds !== undefined) {
    const left = record.startTime.getTime() + seconds * 1000 - now;
    if (left <= 0) return stop(record, 'DeadlineExceeded', record.graceSeconds, now);
    return { type: 'running', report: !record.reportedRunning, requeueAfterMs: left };
  }
  return { type: 'running', report: !record.reportedRunning };
}

/** SIGTERM, then SIGKILL once the grace period has passed; the exit brings the key back. */
function stop(record: PodRecord, reason: StopReason, graceSeconds: number, now: number): Action {
  const graceMs = Math.max(0, graceSeconds) * 1000;
  if (record.termSentAt === undefined) {
    if (graceMs === 0) return { type: 'signal', signal: 'SIGKILL', reason, requeueAfterMs: 1000 };
    return { type: 'signal', signal: 'SIGTERM', reason, requeueAfterMs: graceMs };
  }
  const killAt = record.termSentAt + graceMs;
  if (now < killAt) return { type: 'wait', requeueAfterMs: killAt - now };
  if (!record.killSent) return { type: 'signal', signal: 'SIGKILL', reason, requeueAfterMs: 1000 };
  return { type: 'wait', requeueAfterMs: 1000 };
}
