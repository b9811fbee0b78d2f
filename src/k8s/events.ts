import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { API_VERSION, type GenerationJob } from './types.ts';

export interface EventSubject {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
  namespace?: string;
}

export type EventType = 'Normal' | 'Warning';

/** A GenerationJob as the subject of its Events (`kubectl describe gj` shows them). */
export function jobSubject(job: GenerationJob): EventSubject {
  return {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    name: job.metadata.name ?? '',
    uid: job.metadata.uid,
  };
}

/**
 * Records Kubernetes Events (core/v1), which `kubectl describe` shows under the object.
 * Recording is best effort: a failure is logged, never thrown, since an Event is a
 * report about work, not part of it.
 */
export class EventRecorder {
  private readonly kube: Kube;
  private readonly component: string;
  private readonly log: Logger;

  constructor(kube: Kube, component: string, log: Logger) {
    this.kube = kube;
    this.component = component;
    this.log = log;
  }

  async record(subject: EventSubject, type: EventType, reason: string, message: string): Promise<void> {
    const now = new Date();
    const namespace = subject.namespace ?? this.kube.namespace;
    try {
      await this.kube.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `${subject.name}.${randomBytes(8).toString('hex')}`, namespace },
          involvedObject: { ...subject, namespace },
          type,
          reason,
          message: message.slice(0, 1024),
          source: { component: this.component },
          reportingComponent: this.component,
          reportingInstance: this.component,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (err) {
      this.log.warn({ err: String(err), reason, object: subject.name }, 'could not record event');
    }
  }
}
