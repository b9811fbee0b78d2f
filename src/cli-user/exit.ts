import { notFromTheApi } from '../client/errors.ts';
import type { GenjobsError, Job } from '../client/index.ts';

/**
 * Exit codes of the user commands: a script can tell a failed job from a refused request
 * from a mistake in the command line. 1 means the job failed, nothing else.
 */
export const EXIT = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  jobCancelled: 3,
  refused: 4,
  unavailable: 5,
  throttled: 6,
  outputsNotSaved: 7,
  unexpected: 8,
  interrupted: 130,
  terminated: 143,
} as const;

/** What each exit code means, as `--help` and the README say it. */
const MEANING: Record<keyof typeof EXIT, string> = {
  ok: 'done (a waited-for job completed)',
  jobFailed: 'the job failed (its error is printed)',
  usage: 'usage: a mistake in the command, unreadable input, an unusable --download folder',
  jobCancelled: 'the job was cancelled',
  refused: 'the service refused the request (auth, balance, not found, invalid input)',
  unavailable: 'the service could not be reached (or a proxy answered), or stayed unavailable after retries',
  throttled: "the account's limits (rate, concurrent jobs) still refused it after retries: try later",
  outputsNotSaved: 'the job completed but its outputs could not be saved (the record is printed)',
  unexpected: 'genjobs itself failed unexpectedly (GENJOBS_DEBUG=1 prints the stack)',
  interrupted: 'interrupted (Ctrl-C) while waiting; the job goes on',
  terminated: 'terminated (SIGTERM) while waiting; the job goes on',
};

/** The exit codes as a help section. */
export function exitHelp(): string {
  const rows = (Object.keys(EXIT) as Array<keyof typeof EXIT>).map(
    (k) => `  ${String(EXIT[k]).padEnd(4)} ${MEANING[k]}`,
  );
  return `\nExit codes:\n${rows.join('\n')}`;
}

/** The exit code of a followed job's end. */
export function exitForJob(job: Job): number {
  return job.status === 'completed'
    ? EXIT.ok
    : job.status === 'cancelled'
      ? EXIT.jobCancelled
      : EXIT.jobFailed;
}

/**
 * The exit code of a request the client gave up on: throttled, not answered (or answered by
 * something that is not the api), or refused.
 */
export function exitForError(err: GenjobsError): number {
  if (err.status === 429) return EXIT.throttled;
  if (err.status === 0 || err.retryable || err.code === 'INVALID_RESPONSE' || notFromTheApi(err))
    return EXIT.unavailable;
  return EXIT.refused;
}

/**
 * Whether a request that failed this way may have been carried out all the same: no answer
 * (the connection broke, the wait ran out), a 5xx (the api's, or a proxy's 502 or 504 after
 * it passed the request on), an answer that is not JSON. A 4xx, the api's or a proxy's
 * (its 413 for a body it would not pass on), refused it.
 */
export function outcomeUnknown(err: GenjobsError): boolean {
  if (err.status === 0) return !neverConnected(err);
  return err.status >= 500 || err.code === 'INVALID_RESPONSE';
}

/** No connection was made (refused, no such name): the request cannot have been sent. */
function neverConnected(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
  }
  return false;
}
