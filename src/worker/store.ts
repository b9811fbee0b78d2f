import { UploadFailed } from '../blob/upload-client.ts';
import type { RunContext } from './context.ts';
import { describeError, WorkerError } from './errors.ts';
import { type RetrySchedule, withRetries } from './retry.ts';

/**
 * How long a store that cannot take a file (no answer, 5xx) is waited for: a blip of the
 * store or of the api in front of it (a restart, a full disk being cleared) must not throw
 * away a finished generation. The waits double from `firstMs` up to `maxMs`; past
 * `budgetMs` in all the job fails. A refusal (4xx) is not retried.
 */
export const STORE_RETRY: RetrySchedule = { firstMs: 1_000, maxMs: 15_000, budgetMs: 120_000 };

/**
 * Hands a finished file to the sink and answers its URL. A failing sink is the blob
 * store's fault, not the model's, so it fails the job with `OUTPUT_STORE_FAILED` once
 * retrying (see {@link STORE_RETRY}) is over.
 */
export async function storeFile(
  ctx: RunContext,
  name: string,
  file: string,
  contentType: string,
): Promise<string> {
  return withRetries(ctx, STORE_RETRY, {
    attempt: () => ctx.sink.put(name, file, contentType),
    retryable: (error) => error instanceof UploadFailed && error.retryable,
    onRetry: (error, attempt, waitMs) =>
      ctx.log?.warn(
        { file: name, attempt, waitMs, err: describeError(error) },
        'storing an output failed; retrying',
      ),
    giveUp: (error, attempts) => {
      const tries = attempts > 1 ? ` (${attempts} tries)` : '';
      return new WorkerError('OUTPUT_STORE_FAILED', `storing ${name} failed`, {
        cause: error,
        detail: `storing ${name} failed${tries}: ${describeError(error)}`,
      });
    },
  });
}
