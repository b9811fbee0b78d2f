import { z } from 'zod';
import { WorkerError } from './errors.ts';

// Unknown fields pass through untouched: the controller may copy the catalog's runtime
// (resources, node selector) as it is, and the worker only reads what it needs.
const builtinRuntime = z.looseObject({
  type: z.literal('builtin'),
  /** Seconds the worker allows itself before reporting TIMEOUT. */
  timeoutSeconds: z.number().positive().optional(),
});

const httpRuntime = z.looseObject({
  type: z.literal('http'),
  /** Base URL of a server speaking the Cog HTTP protocol. */
  url: z.url({ protocol: /^https?$/ }),
  timeoutSeconds: z.number().positive().optional(),
  pollIntervalMs: z.number().int().positive().optional(),
});

const workerJob = z.looseObject({
  jobId: z.string().min(1),
  /** The model slug, `<provider>/<model>/<capability>`. */
  model: z.string().min(1),
  capability: z.string().min(1),
  version: z.string().optional(),
  input: z.record(z.string(), z.unknown()),
  seed: z.number().int().optional(),
  runtime: z.discriminatedUnion('type', [builtinRuntime, httpRuntime]),
});

/**
 * The job as the controller hands it to the worker Pod (a mounted JSON file named by
 * `GENJOBS_JOB_FILE`, or inline JSON in `GENJOBS_JOB`). Secrets never travel in it: an
 * upstream token comes in its own env var, filled from a Secret.
 */
export type WorkerJob = z.infer<typeof workerJob>;
export type WorkerRuntime = WorkerJob['runtime'];

/** Parses the job's JSON text; anything malformed is `INVALID_JOB`, naming the field. */
export function parseWorkerJob(text: string): WorkerJob {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkerError('INVALID_JOB', `the job is not JSON (${(error as Error).message})`);
  }
  const parsed = workerJob.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(job)'}: ${issue.message}`,
    );
    throw new WorkerError('INVALID_JOB', `the job is malformed: ${problems.join('; ')}`);
  }
  return parsed.data;
}
