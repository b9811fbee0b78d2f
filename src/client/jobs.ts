import { GenjobsError } from './errors.ts';
import {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  deadline,
  type Http,
  networkReason,
  segment,
  sleep,
} from './http.ts';
import { readEvents } from './sse.ts';
import {
  type CancelResult,
  type Estimate,
  type EstimateRequest,
  isFinished,
  type Job,
  type JobList,
  type JobListQuery,
  type SubmitRequest,
  type SubmitResult,
} from './types.ts';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WaitOptions extends CallOptions {
  /** Called with each new record of the job (status, queue position, ETA). */
  onUpdate?: (job: Job) => void;
  /** Follow the event stream (default), or only poll. */
  stream?: boolean;
  /** With no first event within this many ms, streams are taken as blocked (a buffering proxy). */
  firstEventTimeoutMs?: number;
  /**
   * How long the service may stay unreachable (network errors, 502/503/504) while waiting
   * before `wait` gives up (default 5 minutes): the job goes on meanwhile, so polling resumes
   * when the network comes back (a phone in a tunnel). The error carries `jobId`.
   */
  offlineToleranceMs?: number;
}

export interface RunOptions extends WaitOptions {
  version?: string;
  webhookUrl?: string;
  /**
   * Default: a new random key, so retries of this submit never make a second job. Give your
   * own (and keep it) to call `run` again after an error without a second job: the error
   * carries the key `run` used (`idempotencyKey`) and the job, once submitted (`jobId`).
   */
  idempotencyKey?: string;
}

/** The error statuses on which polling cannot do better than the stream did. */
const FINAL_STATUSES = new Set([401, 403]);

/** The job endpoints, and `run`/`wait`, which follow a job to its end. */
export class Jobs {
  private readonly http: Http;

  constructor(http: Http) {
    this.http = http;
  }

  /**
   * POST /v1/jobs/submit. With an idempotency key, a retried submit answers the same job, and
   * an error carries the key (`idempotencyKey`), to submit again with it later.
   */
  async submit(req: SubmitRequest, o: CallOptions & { idempotencyKey?: string } = {}): Promise<SubmitResult> {
    const key = o.idempotencyKey;
    // A blank key would be sent as none, and its retries could make a second job.
    if (key?.trim() === '') throw new TypeError('genjobs client: an idempotencyKey cannot be blank');
    return this.http
      .json<SubmitResult>({
        method: 'POST',
        path: '/v1/jobs/submit',
        credential: 'bearer',
        body: req,
        headers: key ? { 'idempotency-key': key } : {},
        idempotent: key !== undefined,
        signal: o.signal,
      })
      .catch((err: unknown) => {
        if (err instanceof GenjobsError && key !== undefined) err.idempotencyKey = key;
        throw err;
      });
  }

  estimate(req: EstimateRequest, o: CallOptions = {}): Promise<Estimate> {
    return this.http.json({
      method: 'POST',
      path: '/v1/jobs/estimate',
      credential: 'bearer',
      body: req,
      idempotent: true,
      signal: o.signal,
    });
  }

  async get(jobId: string, o: CallOptions = {}): Promise<Job> {
    return this.http.json({
      method: 'GET',
      path: jobPath(jobId),
      credential: 'bearer',
      idempotent: true,
      signal: o.signal,
    });
  }

  list(query: Partial<JobListQuery> = {}, o: CallOptions = {}): Promise<JobList> {
    return this.http.json({
      method: 'GET',
      path: '/v1/jobs',
      credential: 'bearer',
      query,
      idempotent: true,
      signal: o.signal,
    });
  }

  /**
   * Cancels a pending job (POST /v1/jobs/{jobId}/cancel). A cancel answered 503 may still have
   * happened (the service could not confirm it in time), and its retry then meets the job
   * cancelled, which the service answers 409 `JOB_CANNOT_BE_CANCELLED`: that retry answers
   * the job's cancellation instead. A first cancel of a cancelled job is the 409, as the spec says.
   */
  async cancel(jobId: string, o: CallOptions = {}): Promise<CancelResult> {
    try {
      return await this.http.json<CancelResult>({
        method: 'POST',
        path: `${jobPath(jobId)}/cancel`,
        credential: 'bearer',
        signal: o.signal,
      });
    } catch (err) {
      if (!(err instanceof GenjobsError && err.code === 'JOB_CANNOT_BE_CANCELLED' && err.attempts > 1))
        throw err;
      const job = await this.get(jobId, o);
      if (job.status !== 'cancelled') throw err;
      return { jobId: job.jobId, status: 'cancelled', refundedMicroCents: job.refundedMicroCents ?? 0 };
    }
  }

  /**
   * The job's records as they change (GET /v1/jobs/{jobId}/events), ending with the
   * terminal one. A dropped stream is resumed with Last-Event-ID, so no change is lost; so is
   * one silent for `streamIdleTimeoutMs` (the service sends a heartbeat every 15 s: a proxy
   * or a lost connection holds it open with nothing behind).
   */
  async *events(jobId: string, o: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<Job> {
    const path = `${jobPath(jobId)}/events`;
    const idleMs = this.http.o.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    let lastId = o.lastEventId;
    let failures = 0;
    for (;;) {
      const idle = deadline(idleMs, o.signal);
      try {
        const res = await this.http.send({
          method: 'GET',
          path,
          credential: 'bearer',
          headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          idempotent: true,
          signal: idle.signal,
        });
        if (res.status === 204) return; // the terminal record was the last one we had
        if (!/^text\/event-stream/.test(res.headers.get('content-type') ?? '') || !res.body) {
          await res.body?.cancel();
          throw new GenjobsError('the answer is not an event stream (a proxy in the way?)', {
            status: res.status,
            code: 'STREAM_UNAVAILABLE',
            retryable: false,
          });
        }
        // Every chunk, a heartbeat too, restarts the idle limit.
        idle.restart();
        const body = res.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform: (chunk, out) => {
              idle.restart();
              out.enqueue(chunk);
            },
          }),
        );
        try {
          for await (const e of readEvents(body)) {
            if (e.event !== 'job') continue;
            lastId = e.id ?? lastId;
            failures = 0;
            const job = JSON.parse(e.data) as Job;
            yield job;
            if (isFinished(job)) return;
          }
        } catch (err) {
          if (o.signal?.aborted) throw o.signal.reason;
          if (++failures > 5) throw brokenStream(err);
        }
      } finally {
        idle.clear();
      }
      // The stream ended early (a restart, a proxy's timeout, silence): resume where it was.
      await sleep(Math.min(500 * 2 ** failures, 10_000), o.signal);
    }
  }

  /**
   * Waits for the job to finish and answers its final record (completed, failed or
   * cancelled: check `status`). Follows the event stream; when streams do not get
   * through, polls with a growing interval instead.
   */
  async wait(jobId: string, o: WaitOptions = {}): Promise<Job> {
    let last = '';
    const update = (job: Job) => {
      const text = JSON.stringify(job);
      if (text !== last) o.onUpdate?.(job);
      last = text;
    };
    if (o.stream !== false) {
      const done = await this.follow(jobId, o, update);
      if (done) return done;
    }
    let failingSince: number | undefined;
    for (let delay = 1_000; ; delay = Math.min(delay * 1.5, 10_000)) {
      let job: Job;
      try {
        job = await this.get(jobId, o);
        failingSince = undefined;
      } catch (err) {
        if (o.signal?.aborted || !(err instanceof GenjobsError)) throw err;
        err.jobId = jobId;
        failingSince ??= Date.now();
        if (!err.retryable || Date.now() - failingSince > (o.offlineToleranceMs ?? 300_000)) throw err;
        await sleep(delay, o.signal);
        continue;
      }
      update(job);
      if (isFinished(job)) return job;
      await sleep(delay, o.signal);
    }
  }

  /** Follows the stream; undefined when streams are blocked and polling should take over. */
  private async follow(jobId: string, o: WaitOptions, update: (job: Job) => void): Promise<Job | undefined> {
    const local = new AbortController();
    const onAbort = () => local.abort(o.signal?.reason);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    let seen = false;
    const timer = setTimeout(() => {
      if (!seen) local.abort(new Error('no first event'));
    }, o.firstEventTimeoutMs ?? 10_000);
    try {
      for await (const job of this.events(jobId, { signal: local.signal })) {
        seen = true;
        update(job);
        if (isFinished(job)) return job;
      }
      return undefined;
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      if (err instanceof GenjobsError && (FINAL_STATUSES.has(err.status) || err.code === 'JOB_NOT_FOUND'))
        throw err;
      return undefined; // blocked or broken: poll
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Submits a job and waits for it: `run(model, input)` answers the finished job. The
   * submit carries an Idempotency-Key, so the retries of a lost answer never make a second
   * job. Aborting the signal stops the waiting; the job itself goes on (cancel it to stop it).
   */
  async run(model: string, input: Record<string, unknown>, o: RunOptions = {}): Promise<Job> {
    const idempotencyKey = o.idempotencyKey ?? crypto.randomUUID();
    let jobId: string | undefined;
    try {
      const submitted = await this.submit(
        {
          model,
          input,
          ...(o.version ? { version: o.version } : {}),
          ...(o.webhookUrl ? { webhookUrl: o.webhookUrl } : {}),
        },
        { idempotencyKey, signal: o.signal },
      );
      jobId = submitted.jobId;
      return await this.wait(jobId, o);
    } catch (err) {
      if (err instanceof GenjobsError) {
        err.idempotencyKey = idempotencyKey;
        if (jobId !== undefined) err.jobId = jobId;
      }
      throw err;
    }
  }
}

const jobPath = (jobId: string) => `/v1/jobs/${segment('a job id', jobId)}`;

/** The error of an event stream that kept breaking off. */
function brokenStream(err: unknown): GenjobsError {
  if (err instanceof GenjobsError) return err;
  return new GenjobsError(`the event stream kept breaking off: ${networkReason(err)}`, {
    status: 0,
    code: 'NETWORK_ERROR',
    retryable: true,
    cause: err,
  });
}
