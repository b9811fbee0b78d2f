import { assertNever } from '../errors.ts';

/**
 * The closed set of `error.code` values a failed job can show (GET /v1/jobs/{id},
 * webhooks). The spec names only `GENERATION_FAILED` (the model failed); the others say
 * what else went wrong, so a client can tell "change the input" from "try again later".
 * Worker codes come from the worker's report (src/worker/result.ts, all but `INTERRUPTED`,
 * which the controller retries as a lost Pod); the rest are the controller's own
 * (src/controller/job/decide.ts). A test keeps both files inside this list.
 */
export const JOB_FAILURE_CODES = [
  'GENERATION_FAILED',
  'UPSTREAM_ERROR',
  'TIMEOUT',
  'OUTPUT_STORE_FAILED',
  'INVALID_JOB',
  'INVALID_OUTPUT',
  'INTERNAL',
  'MODEL_UNAVAILABLE',
  'QUEUE_TIMEOUT',
  'OUT_OF_MEMORY',
  'UNSCHEDULABLE',
  'POD_START_TIMEOUT',
  'INFRASTRUCTURE_LOST',
] as const;
export type JobFailureCode = (typeof JOB_FAILURE_CODES)[number];

export function isJobFailureCode(code: string): code is JobFailureCode {
  return (JOB_FAILURE_CODES as readonly string[]).includes(code);
}

/**
 * Whether submitting the same job again may well succeed: true when the cause was load,
 * the infrastructure or a dependency having a bad moment; false when the same input would
 * fail the same way (the model refused it, ran out of memory on it, or the model is gone).
 */
export function isRetryableFailure(code: JobFailureCode): boolean {
  switch (code) {
    case 'UPSTREAM_ERROR':
    case 'TIMEOUT':
    case 'OUTPUT_STORE_FAILED':
    case 'INTERNAL':
    case 'QUEUE_TIMEOUT':
    case 'UNSCHEDULABLE':
    case 'POD_START_TIMEOUT':
    case 'INFRASTRUCTURE_LOST':
      return true;
    case 'GENERATION_FAILED':
    case 'INVALID_JOB':
    case 'INVALID_OUTPUT':
    case 'MODEL_UNAVAILABLE':
    case 'OUT_OF_MEMORY':
      return false;
    default:
      return assertNever(code);
  }
}

/** One line per code for the README and the OpenAPI document: what it means. */
export function describeFailure(code: JobFailureCode): string {
  switch (code) {
    case 'GENERATION_FAILED':
      return 'the model failed to produce output, including an input it could not use (an input URL that could not be fetched or decoded)';
    case 'UPSTREAM_ERROR':
      return "the model's server was unreachable or answered with a server error";
    case 'TIMEOUT':
      return "the generation ran past the model's time limit";
    case 'OUTPUT_STORE_FAILED':
      return 'the outputs could not be stored';
    case 'INVALID_JOB':
      return 'the worker could not read the job it was given (a service bug)';
    case 'INVALID_OUTPUT':
      return 'the worker reported no usable output';
    case 'INTERNAL':
      return 'an unexpected error inside the worker';
    case 'MODEL_UNAVAILABLE':
      return 'the model left the catalog before the job started';
    case 'QUEUE_TIMEOUT':
      return 'no capacity freed up to start the job in time';
    case 'OUT_OF_MEMORY':
      return 'the worker ran out of memory';
    case 'UNSCHEDULABLE':
      return 'the cluster had no room for the worker';
    case 'POD_START_TIMEOUT':
      return 'the worker did not start in time';
    case 'INFRASTRUCTURE_LOST':
      return 'the worker was lost (eviction, node loss) more often than the retry limit';
    default:
      return assertNever(code);
  }
}
