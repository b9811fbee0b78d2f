import type { WorkerErrorCode } from './result.ts';

/**
 * A failure a runtime reports on purpose, with the code and the message the job's owner
 * will read. `detail` is for operators only (the model server's address, the connection
 * error, what it answered): it reaches the worker's log and a Warning Event on the job,
 * never the job's error. Anything else thrown inside a runtime is reported as `INTERNAL`.
 */
export class WorkerError extends Error {
  readonly code: WorkerErrorCode;
  readonly detail: string | undefined;

  constructor(code: WorkerErrorCode, message: string, options: { cause?: unknown; detail?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'WorkerError';
    this.code = code;
    this.detail = options.detail;
  }
}

/** The message of anything thrown, including the cause a fetch failure hides behind "fetch failed". */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
