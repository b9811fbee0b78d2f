import { type Clock, type HandlerResult, WorkQueue } from '../k8s/workqueue.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';

/** One kind's work queue, with what it takes to fill it when this replica starts leading. */
export interface KindQueue {
  kind: string;
  queue: WorkQueue;
  /** Every key of the kind (a new leader reconciles everything once). */
  all: () => string[];
}

export interface KindQueueOptions {
  kind: string;
  reconcile: (key: string) => Promise<HandlerResult | undefined>;
  all: () => string[];
  concurrency: number;
  metrics: Metrics;
  log: Logger;
  clock?: Clock;
}

/** A work queue feeding one reconciler, timed and counted by kind, its failures logged. */
export function kindQueue(o: KindQueueOptions): KindQueue {
  const queue = new WorkQueue({
    concurrency: o.concurrency,
    ...(o.clock ? { clock: o.clock } : {}),
    handler: async (key) => {
      const end = o.metrics.reconcileDuration.startTimer({ kind: o.kind });
      try {
        return await o.reconcile(key);
      } finally {
        end();
      }
    },
    onError: (key, err, permanent) => {
      o.metrics.reconcileErrors.inc({ kind: o.kind });
      // Not `key`, which the logger redacts (API keys): a job's id is followed across the logs.
      const id = o.kind === 'GenerationJob' ? { jobId: key } : { name: key };
      o.log.warn({ kind: o.kind, ...id, err: String(err), permanent }, 'reconcile failed');
    },
  });
  return { kind: o.kind, queue, all: o.all };
}
