import { POD_REFUSED, podRefused } from '../../jobs/conditions.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../jobs/idempotency.ts';
import { phaseOf } from '../../jobs/record.ts';
import type { GenerationJob, GenerationJobStatus, JobError, JobPhase } from '../../k8s/types.ts';
import { parseWorkerResult } from '../../worker/result.ts';
import { sameJson, setCondition } from '../conditions.ts';

/**
 * When a Pod seen running at `now` started, as exactly as can be said. A kubelet gives whole
 * seconds: a start stamped 12:00:07 happened within 12:00:07.000–.999, so a Pod seen running
 * within that second started no later than now, and now is the closer (it errs by how late
 * the watch told, not by up to a second). The run times that estimates learn from are
 * `completedAt − startedAt`, both then taken when seen; a second's truncation on a job of a
 * few seconds made every estimate long. A time with its milliseconds, or a clock that is not
 * the controller's (the start after now, or a second or more before), is kept as it is.
 */
export function runningSince(pod: Pick<PodView, 'startedAt'>, now: number): number {
  const at = pod.startedAt;
  if (at === undefined) return now;
  return at % 1000 === 0 && now >= at && now - at < 1000 ? now : at;
}

/** What the reconciler saw of the job's current Pod, reduced to what decisions need. */
export interface PodView {
  name: string;
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** Pod-level reason: DeadlineExceeded, Evicted, NodeLost... */
  reason?: string;
  message?: string;
  unschedulable?: boolean;
  terminated?: { exitCode: number; reason?: string; message?: string };
}

export interface DecideSettings {
  podStartTimeoutMs: number;
  queueTimeoutMs: number;
  maxAttempts: number;
  ttlMs: number;
  /**
   * A cancelled job is deleted this long after it was cancelled (once refunded): it cost
   * nothing and produced nothing, so keeping it for `ttlMs` would let a client fill the
   * cluster with submit-then-cancel for free. Default: `ttlMs`.
   */
  cancelledTtlMs?: number;
  /**
   * A finished job's worker Pod that has stopped (Succeeded or Failed) is kept this long after
   * the job ended, so `kubectl logs` and `describe` still show what its worker did, as a
   * batch/v1 Job keeps its Pods; it goes sooner with its job. A Pod still running when its job
   * ends (cancelled, timed out) is deleted at once. Default 0: at once.
   */
  keepPodMs?: number;
  /** First retry delay after a lost Pod; doubles per attempt. */
  retryBaseMs: number;
  /** How long a new job may wait for its reservation before it is taken for a failed submit's. */
  reservationGraceMs: number;
}

export interface DecideInput {
  job: GenerationJob;
  /** The Pod of the current attempt, if it exists. */
  pod?: PodView;
  /** The variant's runtime, or undefined when the model left the catalog. */
  runtime?: { timeoutSeconds: number; maxConcurrency?: number };
  /** Whether capacity allows starting this job now (only asked for a waiting job). */
  admitted: boolean;
  /** Whether the account still holds a reservation for the job. */
  reserved: boolean;
  /**
   * Whether the current attempt's Pod was ever seen (the Pod cache showed it). A missing Pod
   * that was seen is gone (deleted, lost with its node), never one still to be created.
   */
  podSeen?: boolean;
  /**
   * Where the job's outputs are published (`<public files URL>/jobs/<jobId>/`): a worker
   * result naming a URL elsewhere is refused, whatever ran in the Pod. Unchecked when absent.
   */
  outputsUnder?: string;
  now: number;
  settings: DecideSettings;
}

export type Action =
  | { kind: 'createPod'; attempt: number }
  /**
   * `graceful`: the worker may still be running (a lost attempt's Pod) and gets its grace
   * period; a finished job's Pod is deleted at once.
   */
  | { kind: 'deletePod'; name: string; graceful: boolean }
  | { kind: 'settle'; op: 'charge' | 'refund' }
  | { kind: 'deleteJob' }
  | { kind: 'event'; type: 'Normal' | 'Warning'; reason: string; message: string };

export interface Decision {
  /** The new status, when it differs from the current one. */
  status?: GenerationJobStatus;
  actions: Action[];
  requeueAfterMs?: number;
}

/** Name of the Pod of one attempt: deterministic, so two controllers cannot start two. */
export function podName(jobId: string, attempt: number): string {
  return `gj-${jobId}-${attempt}`;
}

/** Grace past a runtime's timeout before the controller stops waiting for the Pod to say so. */
const DEADLINE_GRACE_MS = 120_000;

/**
 * The GenerationJob state machine, as a pure function of what was observed. It returns
 * the status to write (compare-and-swap by the caller) and the actions to take after the
 * write succeeds. Terminal phases never change again; every waiting state has a deadline.
 * Steps and success are conditions only (kubectl describe shows them); Events, each one
 * more apiserver write per job, are kept for what an operator must look at: a failure, a
 * lost Pod, a job removed for want of a reservation.
 */
export function decide(input: DecideInput): Decision {
  const { job, pod, now, settings } = input;
  const phase = phaseOf(job);
  const s: GenerationJobStatus = { ...(job.status ?? {}) };
  const at = new Date(now);
  const gen = job.metadata.generation;
  const cond = (type: string, status: 'True' | 'False', reason: string, message: string) => {
    s.conditions = setCondition(s.conditions, { type, status, reason, message, observedGeneration: gen }, at);
  };
  const actions: Action[] = [];
  const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
    actions.push({ kind: 'event', type, reason, message });
  s.observedGeneration = gen;

  const finish = (
    to: Exclude<JobPhase, 'pending' | 'processing'>,
    error?: JobError,
    outputs?: GenerationJobStatus['outputs'],
  ) => {
    s.phase = to;
    s.progress = to === 'completed' ? 100 : 0;
    s.completedAt = at.toISOString();
    if (outputs) s.outputs = outputs;
    if (error) s.error = error;
    if (to !== 'completed') s.refundedMicroCents = job.spec.costMicroCents;
    // The worker Pod ran: said with this write, since its start has no write of its own
    // (the admitting write came before the Pod existed). The time is the Pod's own. A retry's
    // Pod replaces the lost attempt's in it.
    if (pod && ran(pod) && !startedNames(s, pod.name)) {
      s.conditions = setCondition(
        s.conditions,
        {
          type: 'Started',
          status: 'True',
          reason: 'PodRunning',
          message: `worker Pod ${pod.name} ran`,
          observedGeneration: gen,
        },
        new Date(pod.startedAt ?? now),
      );
    }
    cond(
      'Finished',
      'True',
      to === 'completed' ? 'Completed' : (error?.code ?? 'Failed'),
      error?.message ?? 'the job produced its outputs',
    );
    if (error) event('Warning', 'Failed', `${error.code}: ${error.message}`);
    // A stopped Pod is kept a while (settings.keepPodMs): the next look, after this write, times it.
    if (pod && !stopped(pod)) actions.push({ kind: 'deletePod', name: pod.name, graceful: false });
    actions.push({ kind: 'settle', op: to === 'completed' ? 'charge' : 'refund' });
    return result(job, s, actions, settings.ttlMs);
  };

  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    const finishedAt = Date.parse(job.status?.completedAt ?? job.metadata.creationTimestamp ?? '') || now;
    const podUntil = pod && stopped(pod) ? finishedAt + (settings.keepPodMs ?? 0) : now;
    if (pod && now >= podUntil) actions.push({ kind: 'deletePod', name: pod.name, graceful: false });
    if (input.reserved) actions.push({ kind: 'settle', op: phase === 'completed' ? 'charge' : 'refund' });
    const ttl = phase === 'cancelled' ? (settings.cancelledTtlMs ?? settings.ttlMs) : settings.ttlMs;
    // A job made with an Idempotency-Key answers its key for 24 h after it was made: deleted
    // sooner (a short TTL with the archive off), a replay would make and charge a new job
    // under the same id. With the archive on this is a backstop: the archive answers the key.
    const createdAt = Date.parse(job.metadata.creationTimestamp ?? '') || finishedAt;
    const deleteAt = Math.max(
      finishedAt + ttl,
      job.spec.idempotencyKeyHash === undefined ? 0 : createdAt + IDEMPOTENCY_WINDOW_MS,
    );
    // Not before the refund landed: the reservation names the job until then.
    // Its Pods go with it (the reconciler deletes a deleted job's Pods).
    if (now >= deleteAt && !input.reserved) return { actions: [...actions, { kind: 'deleteJob' }] };
    const wake = pod && now < podUntil ? Math.min(podUntil, deleteAt) : deleteAt;
    return { actions, requeueAfterMs: Math.max(1_000, wake - now) };
  }

  const attempts = s.attempts ?? 0;
  const retrying = s.conditions?.find((c) => c.type === 'Retrying' && c.status === 'True');

  if (!pod) {
    if (phase === 'pending' && attempts === 0 && input.podSeen) {
      // Its first Pod existed and is gone before any write named it: an attempt, lost. The
      // retry makes a Pod of another name, so no Pod name ever starts twice.
      s.attempts = 1;
      s.podName = podName(job.metadata.name ?? '', 1);
      return lost('the worker Pod disappeared');
    }
    if (phase === 'pending' && attempts === 0) {
      if (!input.reserved) {
        // The api writes the job and its reservation at once: nothing runs before the
        // reservation shows (the Account's event brings the job back), and a job that never
        // gets one belongs to a submit that was refused or died halfway; it is removed,
        // having cost nothing.
        const waited = now - (Date.parse(job.metadata.creationTimestamp ?? '') || now);
        if (waited <= settings.reservationGraceMs)
          return { actions, requeueAfterMs: settings.reservationGraceMs - waited + 1 };
        event(
          'Warning',
          'NoReservation',
          `no credit reservation after ${Math.round(settings.reservationGraceMs / 1000)} s (the submit was refused or interrupted); the job is removed, nothing was charged`,
        );
        return { actions: [...actions, { kind: 'deleteJob' }] };
      }
      if (!input.runtime)
        return finish('failed', {
          code: 'MODEL_UNAVAILABLE',
          message: `model ${job.spec.model} is no longer in the catalog`,
        });
      const created = Date.parse(job.metadata.creationTimestamp ?? '') || now;
      if (now - created > settings.queueTimeoutMs) {
        return finish('failed', {
          code: 'QUEUE_TIMEOUT',
          message: `no capacity to start the job within ${Math.round(settings.queueTimeoutMs / 1000)} s`,
        });
      }
      if (!input.admitted) {
        if (input.runtime?.maxConcurrency === 0)
          cond(
            'Admitted',
            'False',
            'ModelPaused',
            'the model is paused (its runtime has maxConcurrency 0): the job waits until it has slots again',
          );
        else cond('Admitted', 'False', 'WaitingForCapacity', 'waiting for a free slot of the model');
        return { ...result(job, s, actions), requeueAfterMs: created + settings.queueTimeoutMs - now + 1 };
      }
      // Admitted: its first Pod is made, with no write. The job stays pending (spec 3.1: it
      // is processing once a worker picks it up) while the Pod waits for a node, and may be
      // cancelled meanwhile; the Pod, under its deterministic name, is its own record until
      // the write that says it runs. A cancel that lands first wins: the job is refunded and
      // its Pod deleted (what a started worker wrote no record names); one that comes later
      // is refused.
      return {
        actions: [...actions, { kind: 'createPod', attempt: 1 }],
        requeueAfterMs: settings.podStartTimeoutMs + 1,
      };
    }
    // The Pod of a started attempt is gone: lost to the infrastructure, or removed on purpose for a retry.
    if (retrying) {
      const due =
        Date.parse(retrying.lastTransitionTime) + settings.retryBaseMs * 2 ** Math.max(0, attempts - 1);
      if (now < due) return { actions, requeueAfterMs: due - now };
      // Its Pod has been refused since (a quota, a LimitRange: the PodRefused condition, set
      // at the first refusal): as long as a Pod may wait to start, then the job ends,
      // refunded, rather than hold its money with no way to cancel it. Counted from the
      // refusal, not from when the retry was due: a controller that was down meanwhile
      // tries the Pod first.
      const refused = s.conditions?.find((c) => c.type === POD_REFUSED && c.status === 'True');
      const refusedSince = refused ? Date.parse(refused.lastTransitionTime) : Number.NaN;
      if (now > refusedSince + settings.podStartTimeoutMs)
        return finish('failed', {
          code: 'POD_START_TIMEOUT',
          message: `the worker Pod of attempt ${attempts + 1} could not be started within ${Math.round(settings.podStartTimeoutMs / 1000)} s`,
        });
      return startAttempt(attempts + 1, 'Retried', `attempt ${attempts + 1} of ${settings.maxAttempts}`);
    }
    return lost('the worker Pod disappeared');
  }

  // A Pod of the job exists: the cluster took it, so a refusal no longer holds the job (said
  // at once, so the api estimates it again, even while the first Pod waits for a node).
  const refusalOver = podRefused(job);
  if (refusalOver) cond(POD_REFUSED, 'False', 'PodCreated', `worker Pod ${pod.name} was created`);
  if (attempts === 0) {
    // The first attempt's Pod is its own record (its name is deterministic): the status
    // names it with the next change worth a write, not in a write of its own.
    s.attempts = 1;
    s.podName = pod.name;
    cond('Admitted', 'True', 'Admitted', `worker Pod ${pod.name} was created`);
  }
  switch (pod.phase) {
    case 'Pending':
    case 'Unknown': {
      const waited = now - pod.createdAt;
      if (waited > settings.podStartTimeoutMs) {
        const code = pod.unschedulable ? 'UNSCHEDULABLE' : 'POD_START_TIMEOUT';
        // The scheduler's text names the cluster's nodes: for operators (an Event), not clients.
        if (pod.message) event('Warning', code, pod.message);
        return finish('failed', {
          code,
          message: `the worker Pod did not start within ${Math.round(settings.podStartTimeoutMs / 1000)} s`,
        });
      }
      const requeueAfterMs = settings.podStartTimeoutMs - waited + 1;
      if (attempts === 0 && !refusalOver) return { actions, requeueAfterMs };
      return { ...result(job, s, actions), requeueAfterMs };
    }
    case 'Running': {
      if (phase === 'pending') {
        s.phase = 'processing';
        s.progress = 50;
        s.startedAt ??= new Date(runningSince(pod, now)).toISOString();
      }
      // Said once per Pod: a retry's Pod (the job is processing already) is named too.
      if (phase === 'pending' || !startedNames(s, pod.name))
        cond('Started', 'True', 'PodRunning', `worker Pod ${pod.name} is running`);
      const started = pod.startedAt ?? (Date.parse(s.startedAt ?? '') || now);
      const deadline = started + (input.runtime?.timeoutSeconds ?? 3600) * 1000 + DEADLINE_GRACE_MS;
      if (now > deadline)
        return finish('failed', { code: 'TIMEOUT', message: 'the job ran past its time limit' });
      return { ...result(job, s, actions), requeueAfterMs: deadline - now + 1 };
    }
    case 'Succeeded':
    case 'Failed': {
      s.startedAt ??= new Date(pod.startedAt ?? now).toISOString();
      if (pod.phase === 'Failed' && pod.reason === 'DeadlineExceeded') {
        return finish('failed', {
          code: 'TIMEOUT',
          message: `the job ran past its ${input.runtime?.timeoutSeconds ?? '?'} s limit`,
        });
      }
      if (pod.terminated?.reason === 'OOMKilled') {
        return finish('failed', { code: 'OUT_OF_MEMORY', message: 'the worker ran out of memory' });
      }
      const reported = pod.terminated?.message ? parseWorkerResult(pod.terminated.message) : undefined;
      if (reported?.ok) {
        const stray =
          input.outputsUnder === undefined ? undefined : strayUrl(reported.outputs, input.outputsUnder);
        if (stray !== undefined) {
          event(
            'Warning',
            'WorkerOutputRefused',
            `the worker reported ${stray}, outside ${input.outputsUnder}`,
          );
          return finish('failed', {
            code: 'INVALID_OUTPUT',
            message: "the worker reported an output outside the job's storage",
          });
        }
        if (pod.phase === 'Succeeded') return finish('completed', undefined, reported.outputs);
        return finish('failed', {
          code: 'INVALID_OUTPUT',
          message: 'the worker reported outputs but exited with an error',
        });
      }
      if (reported && !reported.ok && reported.error.code !== 'INVALID_OUTPUT') {
        const { detail, ...error } = reported.error;
        if (error.code === 'INTERRUPTED') return lost(error.message);
        // The worker's detail (a model server's address, a raw error) is for operators only.
        if (detail) event('Warning', 'WorkerFailed', `${error.code}: ${detail}`);
        return finish('failed', error);
      }
      if (pod.phase === 'Succeeded')
        return finish('failed', {
          code: 'INVALID_OUTPUT',
          message: 'the worker exited without a readable result',
        });
      if (
        pod.terminated === undefined ||
        ['Evicted', 'NodeLost', 'Preempting', 'Shutdown', 'Terminated'].includes(pod.reason ?? '')
      ) {
        if (pod.message && !retrying) event('Warning', 'PodLost', pod.message);
        return lost(`the worker Pod was lost (${pod.reason ?? 'no container status'})`);
      }
      // Killed from outside without reporting: SIGKILL (a kill, the node's OOM killer, a
      // runtime stop past its grace) or an unhandled SIGTERM. Not the model's doing; the
      // worker itself answers a SIGTERM with INTERRUPTED (above).
      if (KILLED_EXIT_CODES.has(pod.terminated.exitCode)) {
        return lost(`the worker was killed (exit code ${pod.terminated.exitCode})`);
      }
      // The last lines of an unexpected exit are the worker's logs: for operators only.
      const tail = (pod.terminated.message ?? '').trim().slice(-500);
      if (tail) event('Warning', 'WorkerExited', tail);
      return finish('failed', {
        code: 'GENERATION_FAILED',
        message: `the worker exited with code ${pod.terminated.exitCode}`,
      });
    }
  }

  function startAttempt(attempt: number, reason: string, message: string): Decision {
    s.attempts = attempt;
    s.podName = podName(job.metadata.name ?? '', attempt);
    cond('Admitted', 'True', reason, message);
    if (retrying) cond('Retrying', 'False', 'PodCreated', `attempt ${attempt} started`);
    return {
      ...result(job, s, [...actions, { kind: 'createPod', attempt }]),
      requeueAfterMs: settings.podStartTimeoutMs + 1,
    };
  }

  function lost(why: string): Decision {
    const tried = s.attempts ?? 0;
    if (tried >= settings.maxAttempts) {
      return finish('failed', {
        code: 'INFRASTRUCTURE_LOST',
        message: `${why}; gave up after ${tried} attempts`,
      });
    }
    cond('Retrying', 'True', 'PodLost', why);
    // Told once per loss: the lost Pod's own deletion wakes this job again, and finds it still here.
    if (!retrying) event('Warning', 'PodLost', `${why}; retrying`);
    if (pod) actions.push({ kind: 'deletePod', name: pod.name, graceful: true });
    return {
      ...result(job, s, actions),
      requeueAfterMs: settings.retryBaseMs * 2 ** Math.max(0, tried - 1),
    };
  }
}

/** 128 + SIGKILL, 128 + SIGTERM: a worker process ended by a signal it did not choose. */
const KILLED_EXIT_CODES = new Set([137, 143]);

/** Whether the Started condition names this Pod (not a lost attempt's). */
function startedNames(s: GenerationJobStatus, podName: string): boolean {
  return (
    s.conditions?.some((c) => c.type === 'Started' && (c.message ?? '').includes(`Pod ${podName} `)) ?? false
  );
}

/** Whether the Pod has stopped for good: nothing runs in it any more. */
function stopped(pod: PodView): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

/** Whether the Pod's worker container ran (it may have ended). */
function ran(pod: PodView): boolean {
  if (pod.phase === 'Running' || pod.phase === 'Succeeded') return true;
  return pod.phase === 'Failed' && pod.terminated !== undefined;
}

function result(
  job: GenerationJob,
  s: GenerationJobStatus,
  actions: Action[],
  requeueAfterMs?: number,
): Decision {
  const changed = !sameJson(s, job.status ?? {});
  return {
    ...(changed ? { status: s } : {}),
    actions,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}

/** The first URL of the outputs (files, thumbnails, posters) not under `prefix`, if any. */
function strayUrl(outputs: NonNullable<GenerationJobStatus['outputs']>, prefix: string): string | undefined {
  for (const o of outputs) {
    for (const url of [o.url, o.thumbnail, o.posterImage]) {
      if (url !== undefined && !url.startsWith(prefix)) return url;
    }
  }
  return undefined;
}
