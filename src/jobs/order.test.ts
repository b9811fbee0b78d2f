import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../k8s/types.ts';
import { SUBMITTED_AT_ANNOTATION } from './labels.ts';
import { AdmissionQueue, admissionOrder, queuedOf } from './order.ts';

const job = (name: string, created: string, submittedAt?: string): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: {
    name,
    creationTimestamp: created,
    ...(submittedAt ? { annotations: { [SUBMITTED_AT_ANNOTATION]: submittedAt } } : {}),
  },
  spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
});

describe('admission order', () => {
  it('is the order jobs were submitted in, to the millisecond, within one creation second', () => {
    const second = '2026-11-24T15:12:44Z';
    const jobs = [
      job('c-no-annotation', second), // made before the annotation: after those of its second that have it
      job('a-third', second, '2026-11-24T15:12:44.900Z'),
      job('z-first', second, '2026-11-24T15:12:44.100Z'),
      job('m-second', second, '2026-11-24T15:12:44.500Z'),
      job('b-next-second', '2026-11-24T15:12:45Z', '2026-11-24T15:12:45.001Z'),
      job('y-earlier-second', '2026-11-24T15:12:43Z'),
    ];
    const queue = new AdmissionQueue();
    for (const j of jobs) queue.put(queuedOf(j));
    expect(queue.all.map((q) => q.name)).toEqual([
      'y-earlier-second',
      'z-first',
      'm-second',
      'a-third',
      'c-no-annotation',
      'b-next-second',
    ]);
    expect([...jobs.map(queuedOf)].sort(admissionOrder).map((q) => q.name)).toEqual(
      queue.all.map((q) => q.name),
    );
  });

  it('breaks a tie of the same instant by name', () => {
    const at = '2026-11-24T15:12:44.100Z';
    const sorted = [job('b', '2026-11-24T15:12:44Z', at), job('a', '2026-11-24T15:12:44Z', at)]
      .map(queuedOf)
      .sort(admissionOrder);
    expect(sorted.map((q) => q.name)).toEqual(['a', 'b']);
  });
});
