import type { Kube } from '../../k8s/client.ts';
import { isNotFound, statusCode } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import { bindPod, isPodFinished, type Pod, patchPodStatus, timeOf } from '../../k8s/pods.ts';
import type { Logger } from '../../log.ts';
import { unschedulableConditions } from './status.ts';

export interface ScheduleInput {
  /** Every Pod of the namespace, from the cache. */
  pods: readonly Pod[];
  nodeName: string;
  slots: number;
  /** Pods bound by this agent that the cache does not show bound yet (name → uid). */
  assumed: ReadonlyMap<string, string>;
  /** Pods whose final status this agent has written, which the cache may not show yet. */
  finished: (pod: Pod) => boolean;
  /** When this agent first saw the Pod (any increasing number): the order in a creation second. */
  arrival?: (pod: Pod) => number;
}

export interface SchedulePlan {
  /** Pods to bind now, oldest first. */
  bind: Pod[];
  /** Pods left waiting for room. */
  unschedulable: Pod[];
}

/**
 * The one-node scheduler: a Pod takes a slot from binding until it finishes (or its object
 * is gone), and waiting Pods get the free slots oldest first, as kube-scheduler's queue
 * pops them: by creation (whole seconds), then by arrival, so Pods made in one second are
 * bound in the order they were made, not by name (a job's Pod is named after its random
 * id: a burst's jobs started out of order). Pods meant for another scheduler, or already
 * being deleted, are left alone.
 */
export function planSchedule({
  pods,
  nodeName,
  slots,
  assumed,
  finished,
  arrival = () => 0,
}: ScheduleInput): SchedulePlan {
  let busy = 0;
  const waiting: Pod[] = [];
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const bound = pod.spec?.nodeName === nodeName || assumed.get(name) === pod.metadata?.uid;
    if (bound) {
      if (!isPodFinished(pod) && !finished(pod)) busy++;
    } else if (
      !pod.spec?.nodeName &&
      !pod.metadata?.deletionTimestamp &&
      !isPodFinished(pod) &&
      (pod.spec?.schedulerName ?? 'default-scheduler') === 'default-scheduler'
    ) {
      waiting.push(pod);
    }
  }
  const created = (pod: Pod) => timeOf(pod.metadata?.creationTimestamp)?.getTime() ?? 0;
  waiting.sort(
    (a, b) =>
      created(a) - created(b) ||
      arrival(a) - arrival(b) ||
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  const free = Math.max(0, slots - busy);
  return { bind: waiting.slice(0, free), unschedulable: waiting.slice(free) };
}

export interface SchedulerOptions {
  kube: Kube;
  log: Logger;
  pods: Informer<Pod>;
  nodeName: string;
  slots: number;
  finished: (pod: Pod) => boolean;
}

/**
 * The scheduler half of the agent: one pass binds what fits and marks the rest
 * unschedulable, as kube-scheduler would with a single node. Passes run one at a time
 * (one queue key), so a slot is never given twice.
 */
export class Scheduler {
  private readonly opts: SchedulerOptions;
  private readonly assumed = new Map<string, string>();
  /** Pods by uid → the order this agent first saw them in (the watch's: the apiserver's). */
  private readonly arrivals = new Map<string, number>();
  private arrived = 0;

  constructor(options: SchedulerOptions) {
    this.opts = options;
    options.pods.on((type, pod) => {
      const uid = pod.metadata?.uid ?? '';
      if (type === 'delete') this.arrivals.delete(uid);
      else if (!this.arrivals.has(uid)) this.arrivals.set(uid, this.arrived++);
    });
  }

  async pass(): Promise<undefined> {
    const { kube, log, pods, nodeName } = this.opts;
    for (const [name, uid] of this.assumed) {
      const pod = pods.get(name);
      if (pod?.metadata?.uid !== uid || pod.spec?.nodeName) this.assumed.delete(name);
    }
    const plan = planSchedule({
      ...this.opts,
      pods: pods.list(),
      assumed: this.assumed,
      arrival: (pod) => this.arrivals.get(pod.metadata?.uid ?? '') ?? this.arrived,
    });
    for (const pod of plan.bind) {
      const { name = '', uid = '' } = pod.metadata ?? {};
      try {
        await bindPod(kube, name, nodeName, uid);
        // Until the cache shows the binding, this keeps the slot taken.
        this.assumed.set(name, uid);
        log.info({ pod: name }, 'pod bound');
      } catch (err) {
        // Bound meanwhile, or gone: the cache will say so and bring the pass back.
        if (!isNotFound(err) && statusCode(err) !== 409) throw err;
      }
    }
    const now = new Date();
    for (const pod of plan.unschedulable) {
      const conditions = unschedulableConditions(pod, now);
      if (!conditions) continue;
      const { name = '', uid } = pod.metadata ?? {};
      try {
        await patchPodStatus(kube, name, { conditions }, { uid });
        log.info({ pod: name }, 'pod unschedulable: no free slot');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return undefined;
  }
}
