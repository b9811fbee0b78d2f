/** Latency and throughput figures, and the closed-loop load generator every scenario uses. */

export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
}

export interface LoadResult extends Latency {
  concurrency: number;
  seconds: number;
  perSecond: number;
}

/** The p-th percentile (0..100) of ascending values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function latency(samplesMs: readonly number[]): Latency {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(sorted.length ? sum / sorted.length : Number.NaN),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
  };
}

export function round(x: number, digits = 2): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** a ÷ b, rounded; NaN when either side is missing. */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0)
    return Number.NaN;
  return round(a / b, 3);
}

/**
 * Runs up to `count` operations with `concurrency` in flight at once (each worker takes the
 * next index as soon as its previous operation ends) and times each one. After
 * `maxSeconds` no new operation starts, so a loaded machine shortens the sample instead of
 * the run overrunning its budget; the figures are over the operations done. Any failed
 * operation fails the whole load, naming how many failed and the first reason: a
 * benchmark that silently counts errors as fast answers measures nothing.
 */
export async function closedLoop(
  concurrency: number,
  count: number,
  op: (i: number) => Promise<void>,
  maxSeconds = Number.POSITIVE_INFINITY,
): Promise<LoadResult> {
  return (await timedLoop(concurrency, count, op, maxSeconds)).result;
}

/** {@link closedLoop}, with each operation's time in ms, so several loads can be told as one ({@link mergeLoads}). */
export async function timedLoop(
  concurrency: number,
  count: number,
  op: (i: number) => Promise<void>,
  maxSeconds = Number.POSITIVE_INFINITY,
): Promise<{ result: LoadResult; samples: number[] }> {
  const samples: number[] = [];
  let next = 0;
  let failed = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count || performance.now() > deadline) return;
      const t = performance.now();
      try {
        await op(i);
      } catch (err) {
        failed++;
        firstError ??= err;
      }
      samples.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (failed > 0) {
    throw new Error(`${failed} of ${samples.length} operations failed; first: ${describe(firstError)}`);
  }
  return {
    result: {
      concurrency,
      seconds: round(seconds, 3),
      perSecond: round(samples.length / seconds, 1),
      ...latency(samples),
    },
    samples,
  };
}

/** Loads run apart (rounds of one measurement) as one: operations over their summed time, latency over every sample. */
export function mergeLoads(parts: ReadonlyArray<{ result: LoadResult; samples: number[] }>): LoadResult {
  const seconds = parts.reduce((a, p) => a + p.result.seconds, 0);
  const samples = parts.flatMap((p) => p.samples);
  return {
    concurrency: parts[0]?.result.concurrency ?? 0,
    seconds: round(seconds, 3),
    perSecond: round(samples.length / seconds, 1),
    ...latency(samples),
  };
}

/** An error's message with the apiserver's or the api's answer body, when it has one. */
export function describe(err: unknown): string {
  if (err instanceof Error) {
    const body = (err as { body?: unknown }).body;
    const code = (err as { code?: unknown }).code;
    const extra = body
      ? ` ${String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 300)}`
      : '';
    return `${err.message.split('\n')[0]}${code ? ` (${String(code)})` : ''}${extra}`;
  }
  return String(err);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns true, failing with `what` after the timeout. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`${what}: not reached within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(intervalMs);
  }
}
