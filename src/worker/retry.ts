import type { RunContext } from './context.ts';

/** Waits that double from `firstMs` up to `maxMs`, until `budgetMs` is spent in all. */
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
  budgetMs: number;
}

export interface Retrying<T> {
  attempt: () => Promise<T>;
  /** Whether the same attempt may succeed later (no answer, a 5xx); a refusal is final. */
  retryable: (error: unknown) => boolean;
  /** Heard before each wait, for the Pod's log. */
  onRetry: (error: unknown, attempt: number, waitMs: number) => void;
  /** Makes the job's error of the last failure; called once retrying is over. */
  giveUp: (error: unknown, attempts: number) => Error;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the schedule's budget would be
 * passed by the next wait. The job's abort ends it at once with the error as it is.
 */
export async function withRetries<T>(ctx: RunContext, schedule: RetrySchedule, r: Retrying<T>): Promise<T> {
  const started = ctx.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await r.attempt();
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const waitMs = Math.min(schedule.maxMs, schedule.firstMs * 2 ** (attempt - 1));
      if (!r.retryable(error) || ctx.now() - started + waitMs > schedule.budgetMs)
        throw r.giveUp(error, attempt);
      r.onRetry(error, attempt, waitMs);
      await ctx.sleep(waitMs, ctx.signal);
    }
  }
}
