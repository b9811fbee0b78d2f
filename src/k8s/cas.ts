import { isConflict } from './errors.ts';

export interface RetryOptions {
  /** Attempts before the conflict is given up to the caller. */
  attempts?: number;
  /** Pause before attempt n (1-based, n ≥ 2), in ms; jittered so racing writers spread out. */
  backoffMs?: (attempt: number) => number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultBackoff = (attempt: number) => Math.min(2 ** attempt, 200) * (0.5 + Math.random());
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a read-decide-write step until its write does not conflict. The step must re-read
 * the object each time and write with the `resourceVersion` it read, so every attempt
 * decides on fresh state (a conflict means someone else wrote first: decide again).
 */
export async function retryOnConflict<R>(
  step: (attempt: number) => Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  const attempts = options.attempts ?? 50;
  const backoff = options.backoffMs ?? defaultBackoff;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
      await sleep(backoff(attempt + 1));
    }
  }
}
