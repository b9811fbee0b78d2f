import type { Logger } from '../log.ts';
import type { OutputSink } from './sink.ts';

/** What every runtime gets to run one job. Clients and the clock come in here, never from globals. */
export interface RunContext {
  /** The job's input, as the api validated it against the model's schema. */
  input: Record<string, unknown>;
  /** The job's seed, when it has one besides `input.seed`. */
  seed?: number;
  /** A private directory for intermediate files; the caller removes it. */
  scratchDir: string;
  sink: OutputSink;
  fetch: typeof fetch;
  /** The fetch for URLs a job's input names: guarded against cluster-internal addresses. */
  fetchInput: typeof fetch;
  /**
   * Whether an input URL is one of the service's own files (an upload's fileUrl, an earlier
   * job's output): a failure to fetch one is the store's blip and is waited out, while any
   * other host's fails the job at once, its slot not held for someone else's server.
   */
  ownFile: (url: string) => boolean;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Resolves after `ms`, or rejects when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborts at the job's deadline; runtimes pass it to everything that waits. */
  signal: AbortSignal;
  /** The job's deadline in milliseconds since the epoch (Infinity when it has none), for loops that poll. */
  deadline: number;
  /** The ffmpeg executable. */
  ffmpeg: string;
  /** The job's log (its lines carry jobId and model), for what an operator should see in the Pod's log. */
  log?: Pick<Logger, 'warn'>;
}
