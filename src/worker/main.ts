import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../log.ts';
import { describeError, WorkerError } from './errors.ts';
import { parseWorkerJob, type WorkerJob } from './job.ts';
import { encodeWorkerResult, failure, type WorkerResult } from './result.ts';
import { runJob } from './run.ts';
import type { OutputSink } from './sink.ts';

/**
 * The worker's environment, as the controller sets it in the Pod:
 * - `GENJOBS_JOB_FILE`: path of the job JSON ({@link WorkerJob}); else `GENJOBS_JOB` holds it inline.
 * - `GENJOBS_TERMINATION_LOG`: where the result goes (default `/dev/termination-log`).
 * - `GENJOBS_RUNTIME_TOKEN`: bearer token of an `http` runtime, from a Secret (optional).
 * - `GENJOBS_SCRATCH_DIR`: a writable directory (an emptyDir; default the OS temp dir).
 * - `GENJOBS_FFMPEG`: the ffmpeg executable (default `ffmpeg` on the PATH).
 */
export type WorkerEnv = Record<string, string | undefined>;

export interface WorkerDeps {
  /** Makes the sink for this job's outputs (the blob store grant is the sink's business). */
  makeSink: (job: WorkerJob, env: WorkerEnv) => OutputSink | Promise<OutputSink>;
  fetch?: typeof fetch;
  /** For URLs in the job's input; default `fetch`. */
  fetchInput?: typeof fetch;
  /** Whether an input URL is one of the service's own files (RunContext.ownFile). */
  ownFile?: (url: string) => boolean;
  now?: () => number;
  log?: Logger;
  /** Aborted when the worker must stop; without it, SIGTERM and SIGINT are listened to. */
  signal?: AbortSignal;
}

export const DEFAULT_TERMINATION_LOG = '/dev/termination-log';

/**
 * `genjobs worker`: runs the one job in the environment, writes its result to the
 * termination message and answers the exit code: 0 when the job produced outputs, 1 when
 * it failed (including a job that could not be read).
 */
export async function workerMain(env: WorkerEnv, deps: WorkerDeps): Promise<number> {
  const log = deps.log ?? createLogger('worker');
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  if (deps.signal === undefined) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  const started = performance.now();
  // Its lines name the job (jobId, model) once the job is read.
  let jobLog = log;
  let result: WorkerResult;
  try {
    result = await runFromEnv(env, deps, deps.signal ?? stop.signal, log, (l) => {
      jobLog = l;
    });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  if (result.ok) jobLog.info({ outputs: result.outputs.length, seconds }, 'job completed');
  else jobLog.warn({ error: result.error, seconds }, 'job failed');

  const path = env.GENJOBS_TERMINATION_LOG ?? DEFAULT_TERMINATION_LOG;
  try {
    await writeFile(path, encodeWorkerResult(result));
  } catch (error) {
    // Nothing else can carry the result: the controller will see a failed Pod without one.
    log.error({ path, err: error }, 'could not write the termination message');
    return 1;
  }
  return result.ok ? 0 : 1;
}

async function runFromEnv(
  env: WorkerEnv,
  deps: WorkerDeps,
  signal: AbortSignal,
  log: Logger,
  onJob: (jobLog: Logger) => void,
): Promise<WorkerResult> {
  let job: WorkerJob;
  let sink: OutputSink;
  try {
    job = parseWorkerJob(await readJob(env));
  } catch (error) {
    return error instanceof WorkerError
      ? failure(error.code, error.message)
      : failure('INTERNAL', describeError(error));
  }
  const jobLog = log.child({ jobId: job.jobId, model: job.model });
  onJob(jobLog);
  jobLog.info({ capability: job.capability, runtime: job.runtime.type }, 'job started');
  try {
    sink = await deps.makeSink(job, env);
  } catch (error) {
    return failure('OUTPUT_STORE_FAILED', `the output store could not be opened: ${describeError(error)}`);
  }
  const scratchDir = await mkdtemp(join(env.GENJOBS_SCRATCH_DIR ?? tmpdir(), `genjobs-${job.jobId}-`));
  try {
    return await runJob({
      capability: job.capability,
      runtime: job.runtime,
      input: job.input,
      seed: job.seed,
      scratchDir,
      sink,
      token: env.GENJOBS_RUNTIME_TOKEN || undefined,
      fetch: deps.fetch,
      fetchInput: deps.fetchInput,
      ownFile: deps.ownFile,
      now: deps.now,
      signal,
      ffmpeg: env.GENJOBS_FFMPEG,
      log: jobLog,
    });
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}

async function readJob(env: WorkerEnv): Promise<string> {
  const file = env.GENJOBS_JOB_FILE;
  if (file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new WorkerError(
        'INVALID_JOB',
        `the job file ${file} could not be read (${describeError(error)})`,
      );
    }
  }
  if (env.GENJOBS_JOB) return env.GENJOBS_JOB;
  throw new WorkerError('INVALID_JOB', 'neither GENJOBS_JOB_FILE nor GENJOBS_JOB is set');
}
