import type { RunContext } from './context.ts';
import { describeError, WorkerError } from './errors.ts';

/**
 * Hands a finished file to the sink and answers its URL. A failing sink is the blob
 * store's fault, not the model's, so it fails the job with `OUTPUT_STORE_FAILED`.
 */
export async function storeFile(
  ctx: RunContext,
  name: string,
  file: string,
  contentType: string,
): Promise<string> {
  try {
    return await ctx.sink.put(name, file, contentType);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw new WorkerError('OUTPUT_STORE_FAILED', `storing ${name} failed`, {
      cause: error,
      detail: `storing ${name} failed: ${describeError(error)}`,
    });
  }
}
