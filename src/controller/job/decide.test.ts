import { describe, expect, it } from 'vitest';
import type { GenerationJob, GenerationJobStatus } from '../../k8s/types.ts';
import { type DecideInput, decide, type PodView, podName, runningSince } from './decide.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const settings = {
  podStartTimeoutMs: 60_000,
  queueTimeoutMs: 3_600_000,
  maxAttempts: 3,
  ttlMs: 86_400_000,
  retryBaseMs: 1_000,
  reservationGraceMs: 300_000,
};

/** A fluent job fixture: aJob().processing().build(). */
function aJob() {
  const job: GenerationJob = {
    apiVersion: 'genjobs.io/v1alpha1',
    kind: 'GenerationJob',
    metadata: { name: 'j1', uid: 'u1', generation: 1, creationTimestamp: new Date(T0).toISOString() },
    spec: {
      account: 'acme',
      model: 'genjobs/reference-image/text-to-image',
      version: 'v1.0',
      input: { prompt: 'x' },
      costMicroCents: 134_000,
    },
  };
  const b = {
    status(s: GenerationJobStatus) {
      job.status = { ...job.status, ...s };
      return b;
    },
    started() {
      return b.status({ attempts: 1, podName: podName('j1', 1) });
    },
    processing() {
      return b
        .started()
        .status({ phase: 'processing', progress: 50, startedAt: new Date(T0 + 1_000).toISOString() });
    },
    build: () => job,
  };
  return b;
}

const pod = (p: Partial<PodView> = {}): PodView => ({
  name: podName('j1', 1),
  phase: 'Pending',
  createdAt: T0,
  ...p,
});
const ok = (outputs = [{ url: 'http://x/o.png', type: 'image' }]) => JSON.stringify({ ok: true, outputs });
const fail = (code: string, message = 'boom') => JSON.stringify({ ok: false, error: { code, message } });

function run(job: GenerationJob, extra: Partial<DecideInput> = {}) {
  return decide({
    job,
    runtime: { timeoutSeconds: 600 },
    admitted: true,
    reserved: true,
    now: T0 + 10_000,
    settings,
    ...extra,
  });
}
const kinds = (d: ReturnType<typeof decide>) =>
  d.actions.filter((a) => a.kind !== 'event').map((a) => (a.kind === 'settle' ? `settle:${a.op}` : a.kind));

describe('decide', () => {
  it('admits a waiting job by making its first Pod, with no write: pending until the Pod runs', () => {
    const d = run(aJob().build());
    expect(d.actions).toEqual([{ kind: 'createPod', attempt: 1 }]);
    expect(d.status).toBeUndefined();
    expect(d.requeueAfterMs).toBe(settings.podStartTimeoutMs + 1);
    // Its Pod waits for a node: still pending (a worker has not picked it up), still no write.
    expect(run(aJob().build(), { pod: pod({ phase: 'Pending' }) }).status).toBeUndefined();
    // Its Pod runs: one write, processing, naming the attempt, at the time the Pod started.
    const running = run(aJob().build(), { pod: pod({ phase: 'Running', startedAt: T0 + 12_000 }) });
    expect(running.status).toMatchObject({
      phase: 'processing',
      progress: 50,
      attempts: 1,
      podName: 'gj-j1-1',
      startedAt: new Date(T0 + 12_000).toISOString(),
    });
    expect(running.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Admitted', 'True', 'Admitted'],
      ['Started', 'True', 'PodRunning'],
    ]);
    const processing = { ...aJob().build(), status: running.status };
    expect(
      run(processing, { pod: pod({ phase: 'Running', startedAt: T0 + 12_000 }) }).status,
    ).toBeUndefined();
  });

  it("dates a run's start by when it was seen when the kubelet's whole second cannot say better", () => {
    const seen = T0 + 10_250;
    // Stamped 10 s, seen at 10.25 s: it started within 10.000–10.250, seen is the closer.
    const running = run(aJob().build(), {
      pod: pod({ phase: 'Running', startedAt: T0 + 10_000 }),
      now: seen,
    });
    expect(running.status?.startedAt).toBe(new Date(seen).toISOString());
    // A time with milliseconds is exact; one a second or more ago, or ahead (another clock), is kept.
    expect(runningSince({ startedAt: T0 + 10_125 }, seen)).toBe(T0 + 10_125);
    expect(runningSince({ startedAt: T0 + 9_000 }, seen)).toBe(T0 + 9_000);
    expect(runningSince({ startedAt: T0 + 11_000 }, seen)).toBe(T0 + 11_000);
    expect(runningSince({}, seen)).toBe(seen);
  });

  it('a cancel that lands while the first Pod waits for a node wins: the Pod is deleted, the money refunded', () => {
    const cancelled = aJob().build();
    cancelled.status = { phase: 'cancelled', completedAt: new Date(T0 + 5_000).toISOString() };
    const d = run(cancelled, { pod: pod({ phase: 'Pending' }) });
    expect(kinds(d)).toEqual(['deletePod', 'settle:refund']);
  });

  it('a first Pod seen and gone before any write named it is a lost attempt: the retry runs under a new name', () => {
    const d = run(aJob().build(), { podSeen: true, now: T0 + 20_000 });
    expect(kinds(d)).toEqual([]);
    expect(d.status).toMatchObject({ attempts: 1, podName: 'gj-j1-1' });
    expect(d.status?.phase ?? 'pending').toBe('pending');
    expect(d.status?.conditions?.find((c) => c.type === 'Retrying')).toMatchObject({ status: 'True' });
    const retry = run({ ...aJob().build(), status: d.status }, { now: T0 + 20_000 + d.requeueAfterMs! });
    expect(retry.actions).toEqual([{ kind: 'createPod', attempt: 2 }]);
    expect(retry.status).toMatchObject({ attempts: 2, podName: 'gj-j1-2' });
    // Not seen (this process created it a moment ago, or restarted): admitted again, same name.
    expect(run(aJob().build(), { podSeen: false }).actions).toEqual([{ kind: 'createPod', attempt: 1 }]);
  });

  it('records that the worker Pod ran with the outcome write, at the time the Pod started', () => {
    const admitted = { ...aJob().build(), status: run(aJob().build()).status };
    const done = run(admitted, {
      pod: pod({ phase: 'Succeeded', startedAt: T0 + 12_000, terminated: { exitCode: 0, message: ok() } }),
      now: T0 + 30_000,
    });
    expect(done.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Admitted', 'True'],
      ['Started', 'True'],
      ['Finished', 'True'],
    ]);
    expect(done.status?.conditions?.find((c) => c.type === 'Started')?.lastTransitionTime).toBe(
      new Date(T0 + 12_000).toISOString(),
    );
    // A Pod that never ran says nothing of a start.
    const timedOut = run(admitted, {
      pod: pod({ phase: 'Pending' }),
      now: T0 + settings.podStartTimeoutMs + 1,
    });
    expect(timedOut.status?.phase).toBe('failed');
    expect(timedOut.status?.conditions?.map((c) => c.type)).toEqual(['Admitted', 'Finished']);
  });

  it('names the first Pod in the status with the next change worth a write, not before', () => {
    const job = aJob().build();
    const pending = run(job, { pod: pod() });
    expect(pending.status).toBeUndefined();
    expect(pending.requeueAfterMs).toBe(settings.podStartTimeoutMs - 10_000 + 1);
    const running = run(job, { pod: pod({ phase: 'Running', startedAt: T0 + 2_000 }) });
    expect(running.status).toMatchObject({ phase: 'processing', attempts: 1, podName: 'gj-j1-1' });
    expect(running.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Admitted', 'True'],
      ['Started', 'True'],
    ]);
    // Straight to the end (the Pod finished before the controller saw it run): one write.
    const done = run(job, { pod: pod({ phase: 'Succeeded', terminated: { exitCode: 0, message: ok() } }) });
    expect(done.status).toMatchObject({ phase: 'completed', attempts: 1, podName: 'gj-j1-1' });
    // Lost before it ran: the retry counts it as attempt 1.
    const lost = run(job, { pod: pod({ phase: 'Failed', reason: 'Evicted' }) });
    expect(lost.status).toMatchObject({ attempts: 1 });
    expect(lost.status?.conditions?.find((c) => c.type === 'Retrying')).toMatchObject({ status: 'True' });
    // A finished job's stopped Pod is kept (see the next test); a lost attempt's goes with its
    // grace period.
    const deletes = (d: ReturnType<typeof decide>) => d.actions.filter((a) => a.kind === 'deletePod');
    expect(deletes(done)).toEqual([]);
    expect(deletes(lost)).toEqual([{ kind: 'deletePod', name: 'gj-j1-1', graceful: true }]);
  });

  it("keeps a finished job's stopped Pod for keepPodMs, then deletes it at once; a running one goes at once", () => {
    const keep = { ...settings, keepPodMs: 600_000 };
    const endedAt = T0 + 5_000;
    const job = aJob()
      .processing()
      .status({ phase: 'completed', progress: 100, completedAt: new Date(endedAt).toISOString() })
      .build();
    const succeeded = pod({ phase: 'Succeeded', terminated: { exitCode: 0, message: ok() } });
    const deletes = (d: ReturnType<typeof decide>) => d.actions.filter((a) => a.kind === 'deletePod');
    const kept = run(job, { pod: succeeded, now: endedAt + 1_000, settings: keep, reserved: false });
    expect(deletes(kept)).toEqual([]);
    expect(kept.requeueAfterMs).toBe(599_000);
    const due = run(job, { pod: succeeded, now: endedAt + 600_000, settings: keep, reserved: false });
    expect(deletes(due)).toEqual([{ kind: 'deletePod', name: 'gj-j1-1', graceful: false }]);
    expect(due.requeueAfterMs).toBe(settings.ttlMs - 600_000);
    // A failed worker's Pod is kept as well: its logs say why.
    const failedPod = pod({
      phase: 'Failed',
      terminated: { exitCode: 1, message: fail('GENERATION_FAILED') },
    });
    expect(deletes(run(job, { pod: failedPod, now: endedAt + 1_000, settings: keep }))).toEqual([]);
    // Still running when its job ended (a cancel, a deadline): deleted at once, whatever the keep.
    const cancelled = { ...job, status: { ...job.status, phase: 'cancelled' as const } };
    const running = run(cancelled, { pod: pod({ phase: 'Running' }), now: endedAt + 1_000, settings: keep });
    expect(deletes(running)).toEqual([{ kind: 'deletePod', name: 'gj-j1-1', graceful: false }]);
    // The job's own deletion comes first when its TTL is shorter: its Pod goes with it.
    const short = { ...keep, ttlMs: 60_000 };
    expect(
      run(job, { pod: succeeded, now: endedAt + 1_000, settings: short, reserved: false }).requeueAfterMs,
    ).toBe(59_000);
    expect(
      kinds(run(job, { pod: succeeded, now: endedAt + 60_000, settings: short, reserved: false })),
    ).toEqual(['deleteJob']);
  });

  it('leaves a new job alone until its reservation shows, and removes it if none comes within the grace', () => {
    const waiting = run(aJob().build(), { reserved: false });
    expect(waiting.status).toBeUndefined();
    expect(waiting.actions).toEqual([]);
    expect(waiting.requeueAfterMs).toBe(settings.reservationGraceMs - 10_000 + 1);
    const late = run(aJob().build(), { reserved: false, now: T0 + settings.reservationGraceMs + 1 });
    expect(late.status).toBeUndefined();
    expect(kinds(late)).toEqual(['deleteJob']);
    expect(late.actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'NoReservation' }));
    // A cancelled job without a reservation is settled, not waiting.
    const cancelled = aJob()
      .status({ phase: 'cancelled', completedAt: new Date(T0).toISOString() })
      .build();
    expect(kinds(run(cancelled, { reserved: false }))).toEqual([]);
  });

  it('keeps a job without capacity waiting, cancellable, with no Pod', () => {
    const d = run(aJob().build(), { admitted: false });
    expect(kinds(d)).toEqual([]);
    expect(d.status?.conditions?.[0]).toMatchObject({
      type: 'Admitted',
      status: 'False',
      reason: 'WaitingForCapacity',
    });
  });

  it('fails a job that waited past the queue timeout, refunding it', () => {
    const d = run(aJob().build(), { admitted: false, now: T0 + settings.queueTimeoutMs + 1 });
    expect(d.status).toMatchObject({
      phase: 'failed',
      progress: 0,
      error: { code: 'QUEUE_TIMEOUT' },
      refundedMicroCents: 134_000,
    });
    expect(kinds(d)).toEqual(['settle:refund']);
  });

  it.each<[string, Partial<PodView>, Partial<GenerationJobStatus>, string[]]>([
    [
      'running Pod → processing',
      { phase: 'Running', startedAt: T0 + 2_000 },
      { phase: 'processing', progress: 50 },
      [],
    ],
    [
      'success → completed',
      { phase: 'Succeeded', terminated: { exitCode: 0, message: ok() } },
      { phase: 'completed', progress: 100 },
      ['settle:charge'],
    ],
    [
      'model error → failed, no retry',
      { phase: 'Failed', terminated: { exitCode: 1, message: fail('GENERATION_FAILED') } },
      { phase: 'failed', error: { code: 'GENERATION_FAILED', message: 'boom' } },
      ['settle:refund'],
    ],
    [
      'deadline → TIMEOUT',
      { phase: 'Failed', reason: 'DeadlineExceeded' },
      { phase: 'failed' },
      ['settle:refund'],
    ],
    [
      'OOM → OUT_OF_MEMORY',
      { phase: 'Failed', terminated: { exitCode: 137, reason: 'OOMKilled' } },
      { phase: 'failed' },
      ['settle:refund'],
    ],
    [
      'killed from outside (SIGKILL, no result) → retried',
      { phase: 'Failed', terminated: { exitCode: 137, reason: 'Error' } },
      { phase: 'processing', conditions: [expect.objectContaining({ type: 'Retrying', reason: 'PodLost' })] },
      ['deletePod'],
    ],
    [
      'success without result → INVALID_OUTPUT',
      { phase: 'Succeeded', terminated: { exitCode: 0, message: 'not json' } },
      { phase: 'failed' },
      ['settle:refund'],
    ],
    [
      'crash with logs → GENERATION_FAILED',
      { phase: 'Failed', terminated: { exitCode: 2, message: 'Segmentation fault' } },
      { phase: 'failed' },
      ['settle:refund'],
    ],
  ])('%s', (_name, p, expected, actions) => {
    const d = run(aJob().processing().build(), { pod: pod(p) });
    expect(d.status).toMatchObject(expected);
    expect(kinds(d)).toEqual(actions);
  });

  it('goes straight from pending to completed when the Pod finished before it was seen running', () => {
    const d = run(aJob().started().build(), {
      pod: pod({ phase: 'Succeeded', startedAt: T0 + 500, terminated: { exitCode: 0, message: ok() } }),
    });
    expect(d.status).toMatchObject({
      phase: 'completed',
      progress: 100,
      startedAt: new Date(T0 + 500).toISOString(),
    });
    expect(d.status?.outputs).toEqual([{ url: 'http://x/o.png', type: 'image' }]);
  });

  it("completes with outputs under the job's storage, and fails a result that names a URL elsewhere", () => {
    const under = 'https://files.example/jobs/j1/';
    const finished = (outputs: unknown[]) =>
      run(aJob().processing().build(), {
        outputsUnder: under,
        pod: pod({
          phase: 'Succeeded',
          terminated: { exitCode: 0, message: JSON.stringify({ ok: true, outputs }) },
        }),
      });
    const good = finished([
      { url: `${under}out/0.mp4`, type: 'video', posterImage: `${under}out/poster.png` },
    ]);
    expect(good.status?.phase).toBe('completed');
    for (const stray of [
      [{ url: 'https://phish.example/jobs/j1/out/0.png', type: 'image' }],
      [{ url: 'https://files.example/jobs/j2/out/0.png', type: 'image' }],
      [{ url: `${under}out/0.mp4`, type: 'video', thumbnail: 'https://elsewhere.example/t.png' }],
    ]) {
      const d = finished(stray);
      expect(d.status).toMatchObject({ phase: 'failed', error: { code: 'INVALID_OUTPUT' } });
      expect(d.status?.outputs).toBeUndefined();
      expect(kinds(d)).toContain('settle:refund');
      expect(d.actions).toContainEqual(
        expect.objectContaining({ kind: 'event', reason: 'WorkerOutputRefused' }),
      );
    }
  });

  it('retries a lost Pod with backoff up to the limit, then fails with INFRASTRUCTURE_LOST', () => {
    const evicted = pod({ phase: 'Failed', reason: 'Evicted', message: 'node pressure' });
    const first = run(aJob().processing().build(), { pod: evicted });
    expect(kinds(first)).toEqual(['deletePod']);
    expect(first.status?.phase).toBe('processing');
    expect(first.requeueAfterMs).toBe(1_000);
    const events = (d: ReturnType<typeof decide>) => d.actions.filter((a) => a.kind === 'event');
    expect(events(first).map((e) => e.reason)).toEqual(['PodLost', 'PodLost']);
    const waiting = { ...aJob().processing().build(), status: first.status };
    // The lost Pod's deletion (two watch events) decides again: nothing is told twice.
    expect(events(run(waiting, { pod: evicted, now: T0 + 500 }))).toEqual([]);
    expect(kinds(run(waiting, { now: T0 + 10_500 }))).toEqual([]);
    const retry = run(waiting, { now: T0 + 11_001 });
    expect(kinds(retry)).toEqual(['createPod']);
    expect(retry.status).toMatchObject({ attempts: 2, podName: 'gj-j1-2' });
    const last = run(
      { ...waiting, status: { ...waiting.status, attempts: 3 } },
      { pod: { ...evicted, name: 'gj-j1-3' } },
    );
    expect(last.status).toMatchObject({ phase: 'failed', error: { code: 'INFRASTRUCTURE_LOST' } });
  });

  it('fails, refunded, a retry whose Pod could not be made for the Pod start time (a quota refuses it), rather than hold it processing', () => {
    const evicted = pod({ phase: 'Failed', reason: 'Evicted', message: 'node pressure' });
    const first = run(aJob().processing().build(), { pod: evicted });
    const waiting = { ...aJob().processing().build(), status: first.status };
    // Due at T0 + 11 s; long past that with no refusal said (the controller was down), it
    // tries the Pod.
    expect(kinds(run(waiting, { now: T0 + 11_001 + 10 * settings.podStartTimeoutMs }))).toEqual([
      'createPod',
    ]);
    // Refused first at T0 + 12 s: for the Pod start time it still tries to make the Pod.
    const refusedAt = T0 + 12_000;
    const conditions = [
      ...(waiting.status?.conditions ?? []),
      {
        type: 'PodRefused',
        status: 'True' as const,
        reason: 'Forbidden',
        lastTransitionTime: new Date(refusedAt).toISOString(),
      },
    ];
    const refused = { ...waiting, status: { ...waiting.status, conditions } };
    expect(kinds(run(refused, { now: refusedAt + settings.podStartTimeoutMs }))).toEqual(['createPod']);
    const gaveUp = run(refused, { now: refusedAt + settings.podStartTimeoutMs + 1 });
    expect(gaveUp.status).toMatchObject({ phase: 'failed', error: { code: 'POD_START_TIMEOUT' } });
    expect(gaveUp.status?.error?.message).toBe(
      'the worker Pod of attempt 2 could not be started within 60 s',
    );
    expect(kinds(gaveUp)).toContain('settle:refund');
    expect(kinds(gaveUp)).not.toContain('createPod');
  });

  it('says a refusal is over with a write as soon as a Pod of the job exists, even one waiting for a node', () => {
    const refused = aJob()
      .status({
        conditions: [
          {
            type: 'PodRefused',
            status: 'True',
            reason: 'Forbidden',
            lastTransitionTime: new Date(T0).toISOString(),
          },
        ],
      })
      .build();
    const d = run(refused, { pod: pod({ phase: 'Pending' }) });
    expect(d.status?.conditions?.find((c) => c.type === 'PodRefused')).toMatchObject({
      status: 'False',
      reason: 'PodCreated',
    });
    expect(d.status?.phase ?? 'pending').toBe('pending');
    // Without a refusal to clear, a first Pod waiting for a node costs no write.
    expect(run(aJob().build(), { pod: pod({ phase: 'Pending' }) }).status).toBeUndefined();
  });

  it("names a retry's Pod in Started once it runs, not the lost attempt's", () => {
    const retried = aJob()
      .processing()
      .status({
        attempts: 2,
        podName: 'gj-j1-2',
        conditions: [
          {
            type: 'Started',
            status: 'True',
            reason: 'PodRunning',
            message: 'worker Pod gj-j1-1 is running',
            lastTransitionTime: new Date(T0).toISOString(),
          },
        ],
      })
      .build();
    const running = run(retried, { pod: pod({ name: 'gj-j1-2', phase: 'Running', startedAt: T0 + 5_000 }) });
    expect(running.status?.conditions?.find((c) => c.type === 'Started')?.message).toBe(
      'worker Pod gj-j1-2 is running',
    );
    // Said once: the next look writes nothing.
    const again = { ...retried, status: running.status };
    expect(
      run(again, { pod: pod({ name: 'gj-j1-2', phase: 'Running', startedAt: T0 + 5_000 }) }).status,
    ).toBeUndefined();
    // Straight to its end unseen running: the end's write names it.
    const done = run(retried, {
      pod: pod({ name: 'gj-j1-2', phase: 'Succeeded', terminated: { exitCode: 0, message: ok() } }),
    });
    expect(done.status?.conditions?.find((c) => c.type === 'Started')?.message).toBe(
      'worker Pod gj-j1-2 ran',
    );
  });

  it('says a job of a paused model waits for the pause, not for capacity', () => {
    const d = run(aJob().build(), { admitted: false, runtime: { timeoutSeconds: 600, maxConcurrency: 0 } });
    expect(d.status?.conditions?.[0]).toMatchObject({
      type: 'Admitted',
      status: 'False',
      reason: 'ModelPaused',
    });
  });

  it('treats a worker interrupted by SIGTERM like a lost Pod', () => {
    const d = run(aJob().processing().build(), {
      pod: pod({ phase: 'Failed', terminated: { exitCode: 1, message: fail('INTERRUPTED') } }),
    });
    expect(d.status?.phase).toBe('processing');
    expect(d.status?.conditions?.find((c) => c.type === 'Retrying')?.status).toBe('True');
  });

  it('fails a Pod that cannot be scheduled within the start timeout', () => {
    const d = run(aJob().started().build(), {
      pod: pod({ unschedulable: true }),
      now: T0 + settings.podStartTimeoutMs + 1,
    });
    expect(d.status).toMatchObject({ phase: 'failed', error: { code: 'UNSCHEDULABLE' } });
  });

  it('fails a job whose model left the catalog before it started', () => {
    const d = run(aJob().build(), { runtime: undefined });
    expect(d.status).toMatchObject({ phase: 'failed', error: { code: 'MODEL_UNAVAILABLE' } });
  });

  it('on a cancelled job deletes its Pod and settles a reservation still held; never changes the phase', () => {
    const job = aJob()
      .started()
      .status({ phase: 'cancelled', completedAt: new Date(T0 + 5_000).toISOString() })
      .build();
    const d = run(job, { pod: pod({ phase: 'Running' }) });
    expect(d.status).toBeUndefined();
    expect(kinds(d)).toEqual(['deletePod', 'settle:refund']);
    expect(kinds(run(job, { reserved: false }))).toEqual([]);
  });

  it('deletes finished jobs after the TTL and asks to come back until then', () => {
    const job = aJob()
      .processing()
      .status({ phase: 'completed', completedAt: new Date(T0).toISOString() })
      .build();
    expect(run(job, { reserved: false }).requeueAfterMs).toBe(settings.ttlMs - 10_000);
    expect(kinds(run(job, { reserved: false, now: T0 + settings.ttlMs }))).toEqual(['deleteJob']);
  });

  it('writes nothing when nothing changed', () => {
    const first = run(aJob().processing().build(), { pod: pod({ phase: 'Running', startedAt: T0 + 1_000 }) });
    const job = aJob().processing().build();
    job.status = first.status ?? job.status;
    expect(run(job, { pod: pod({ phase: 'Running', startedAt: T0 + 1_000 }) }).status).toBeUndefined();
  });
});
