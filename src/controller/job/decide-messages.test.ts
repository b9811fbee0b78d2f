import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../../k8s/types.ts';
import { decide, type PodView, podName } from './decide.ts';

// What a failed job tells its client: a safe message. The cluster's own text (scheduler
// reasons naming nodes, worker log tails with addresses) goes to a Warning Event only.

const T0 = Date.parse('2026-01-01T00:00:00Z');
const settings = {
  podStartTimeoutMs: 60_000,
  queueTimeoutMs: 3_600_000,
  maxAttempts: 1,
  ttlMs: 86_400_000,
  retryBaseMs: 1_000,
  reservationGraceMs: 300_000,
};
const job = (status: GenerationJob['status']): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name: 'j1', uid: 'u1', generation: 1, creationTimestamp: new Date(T0).toISOString() },
  spec: {
    account: 'acme',
    model: 'genjobs/reference-image/text-to-image',
    version: 'v1.0',
    input: {},
    costMicroCents: 1,
  },
  status,
});
const pod = (p: Partial<PodView>): PodView => ({
  name: podName('j1', 1),
  phase: 'Pending',
  createdAt: T0,
  ...p,
});
const started = { attempts: 1, podName: podName('j1', 1) };

function failure(p: Partial<PodView>, now = T0 + 10_000) {
  const d = decide({
    job: job({ ...started, phase: 'processing' }),
    pod: pod(p),
    runtime: { timeoutSeconds: 600 },
    admitted: true,
    reserved: true,
    now,
    settings,
  });
  const events = d.actions.flatMap((a) => (a.kind === 'event' ? [a.message] : []));
  return { error: d.status?.error, events };
}

const INTERNAL = '0/3 nodes are available: node-10-0-3-7 had untolerated taint, dial tcp 10.0.3.7:443';

describe('failed jobs keep cluster details out of the client message', () => {
  it.each([
    [
      'a Pod that never started',
      { phase: 'Pending', unschedulable: true, message: INTERNAL } as Partial<PodView>,
      T0 + 70_000,
      { code: 'UNSCHEDULABLE', message: 'the worker Pod did not start within 60 s' },
    ],
    [
      'a lost Pod',
      { phase: 'Failed', reason: 'Evicted', message: INTERNAL } as Partial<PodView>,
      T0 + 10_000,
      {
        code: 'INFRASTRUCTURE_LOST',
        message: 'the worker Pod was lost (Evicted); gave up after 1 attempts',
      },
    ],
    [
      'a crash with logs',
      { phase: 'Failed', terminated: { exitCode: 2, message: INTERNAL } } as Partial<PodView>,
      T0 + 10_000,
      { code: 'GENERATION_FAILED', message: 'the worker exited with code 2' },
    ],
    [
      'a worker that reports a detail (the model server it could not reach)',
      {
        phase: 'Failed',
        terminated: {
          exitCode: 1,
          message: JSON.stringify({
            ok: false,
            error: {
              code: 'UPSTREAM_ERROR',
              message: 'the model server could not be reached',
              detail: INTERNAL,
            },
          }),
        },
      } as Partial<PodView>,
      T0 + 10_000,
      { code: 'UPSTREAM_ERROR', message: 'the model server could not be reached' },
    ],
  ])('%s: the client reads a safe message, the Event the detail', (_name, p, now, expected) => {
    const { error, events } = failure(p, now);
    expect(error).toEqual(expected);
    expect(events.some((m) => m.includes(INTERNAL))).toBe(true);
  });
});
