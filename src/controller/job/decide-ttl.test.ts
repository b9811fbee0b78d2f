import { describe, expect, it } from 'vitest';
import type { GenerationJob, JobPhase } from '../../k8s/types.ts';
import { decide } from './decide.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const settings = {
  podStartTimeoutMs: 60_000,
  queueTimeoutMs: 3_600_000,
  maxAttempts: 3,
  ttlMs: 7 * 86_400_000,
  cancelledTtlMs: 300_000,
  retryBaseMs: 1_000,
  reservationGraceMs: 300_000,
};

function finished(phase: JobPhase): GenerationJob {
  return {
    apiVersion: 'genjobs.io/v1alpha1',
    kind: 'GenerationJob',
    metadata: { name: 'j1', uid: 'u1', generation: 1, creationTimestamp: new Date(T0).toISOString() },
    spec: { account: 'acme', model: 'm/x/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
    status: { phase, completedAt: new Date(T0).toISOString() },
  };
}

const at = (phase: JobPhase, afterMs: number, reserved = false) =>
  decide({ job: finished(phase), admitted: false, reserved, now: T0 + afterMs, settings });

describe('decide: how long finished jobs stay', () => {
  it('deletes a cancelled job once its short TTL has passed', () => {
    expect(at('cancelled', 299_000)).toEqual({ actions: [], requeueAfterMs: 1_000 });
    expect(at('cancelled', 300_000).actions).toEqual([{ kind: 'deleteJob' }]);
  });

  it("keeps a job made with an Idempotency-Key until its key's 24 h are over, whatever the TTL", () => {
    const keyed = (phase: JobPhase, afterMs: number) => {
      const job = finished(phase);
      job.spec.idempotencyKeyHash = 'h';
      return decide({
        job,
        admitted: false,
        reserved: false,
        now: T0 + afterMs,
        settings: { ...settings, ttlMs: 60_000 },
      });
    };
    for (const phase of ['cancelled', 'completed'] as const) {
      expect(keyed(phase, 300_000)).toEqual({ actions: [], requeueAfterMs: 86_400_000 - 300_000 });
      expect(keyed(phase, 86_399_000).actions).toEqual([]);
      expect(keyed(phase, 86_400_000).actions).toEqual([{ kind: 'deleteJob' }]);
    }
    // Without a key the short TTL stands.
    expect(at('cancelled', 300_000).actions).toEqual([{ kind: 'deleteJob' }]);
  });

  it('keeps a cancelled job whose refund has not landed yet, and looks again soon', () => {
    const d = at('cancelled', 400_000, true);
    expect(d.actions).toEqual([{ kind: 'settle', op: 'refund' }]);
    expect(d.requeueAfterMs).toBe(1_000);
  });

  it('keeps completed and failed jobs for the full TTL', () => {
    for (const phase of ['completed', 'failed'] as const) {
      expect(at(phase, 300_000).actions).toEqual([]);
      expect(at(phase, settings.ttlMs).actions).toEqual([{ kind: 'deleteJob' }]);
    }
  });
});
