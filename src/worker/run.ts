import { setTimeout as delay } from 'node:timers/promises';
import { isBuiltinCapability } from '../catalog/builtin.ts';
import { assertNever } from '../errors.ts';
import type { OutputItem } from '../k8s/types.ts';
import { runBuiltin } from './builtin/runtime.ts';
import type { RunContext } from './context.ts';
import { describeError, WorkerError } from './errors.ts';
import { runHttp } from './http-runtime.ts';
import type { WorkerRuntime } from './job.ts';
import { failure, type WorkerResult } from './result.ts';
import type { OutputSink } from './sink.ts';

export interface RunJobOptions {
  capability: string;
  runtime: WorkerRuntime;
  input: Record<string, unknown>;
  seed?: number;
  scratchDir: string;
  sink: OutputSink;
  /** Bearer token for an `http` runtime's server. */
  token?: string;
  fetch?: typeof fetch;
  /** For URLs in the job's input; default `fetch`. */
  fetchInput?: typeof fetch;
  /** See RunContext.ownFile; default: none. */
  ownFile?: (url: string) => boolean;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted when the worker must stop (SIGTERM); the result is then `INTERRUPTED`. */
  signal?: AbortSignal;
  ffmpeg?: string;
  log?: RunContext['log'];
}

/**
 * Runs one job through its runtime and reports the outcome in the result protocol. Never
 * throws: a runtime's {@link WorkerError} keeps its code, the runtime's deadline
 * (`timeoutSeconds`) becomes `TIMEOUT`, anything unexpected `INTERNAL`.
 */
export async function runJob(options: RunJobOptions): Promise<WorkerResult> {
  const now = options.now ?? Date.now;
  const { timeoutSeconds } = options.runtime;
  const timeout = timeoutSeconds === undefined ? undefined : AbortSignal.timeout(timeoutSeconds * 1000);
  const signals = [options.signal, timeout].filter((signal) => signal !== undefined);
  const ctx: RunContext = {
    input: options.input,
    seed: options.seed,
    scratchDir: options.scratchDir,
    sink: options.sink,
    fetch: options.fetch ?? fetch,
    fetchInput: options.fetchInput ?? options.fetch ?? fetch,
    ownFile: options.ownFile ?? (() => false),
    now,
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
    signal: AbortSignal.any(signals),
    deadline: timeoutSeconds === undefined ? Number.POSITIVE_INFINITY : now() + timeoutSeconds * 1000,
    ffmpeg: options.ffmpeg ?? 'ffmpeg',
    log: options.log,
  };
  try {
    return { ok: true, outputs: await dispatch(options, ctx) };
  } catch (error) {
    // The abort surfaces as whatever the waiting call threw; the signals say what happened.
    if (options.signal?.aborted) {
      return failure('INTERRUPTED', 'the worker was stopped before the job finished');
    }
    if (timeout?.aborted) return failure('TIMEOUT', `the job did not finish within ${timeoutSeconds} s`);
    if (error instanceof WorkerError) return failure(error.code, error.message, error.detail);
    return failure('INTERNAL', 'the worker failed unexpectedly', describeError(error));
  }
}

function dispatch(options: RunJobOptions, ctx: RunContext): Promise<OutputItem[]> {
  const { runtime, capability } = options;
  switch (runtime.type) {
    case 'builtin':
      if (!isBuiltinCapability(capability)) {
        throw new WorkerError(
          'INVALID_JOB',
          `the builtin runtime has no capability ${JSON.stringify(capability)}`,
        );
      }
      return runBuiltin(capability, ctx);
    case 'http':
      return runHttp({ url: runtime.url, token: options.token, pollIntervalMs: runtime.pollIntervalMs }, ctx);
    default:
      return assertNever(runtime);
  }
}
