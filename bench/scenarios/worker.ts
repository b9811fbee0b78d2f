/**
 * Scenario 8: wall time of the builtin runtime on the spec's cases (1k image, 4k image,
 * 8 s 720p video with sound), one after another with nothing else of the run going on.
 * Quick mode times the 1k image only: the point there is that the path still works.
 */
import { benchmarkWorker, WORKER_BENCH_CASES, type WorkerBenchResult } from '../../src/worker/bench.ts';
import type { BenchContext } from '../harness/context.ts';

export async function workerScenario(ctx: BenchContext): Promise<{ cases: WorkerBenchResult[] }> {
  const cases = ctx.quick ? WORKER_BENCH_CASES.slice(0, 1) : WORKER_BENCH_CASES;
  ctx.progress(`worker: ${cases.map((c) => c.name).join(', ')}`);
  return { cases: await benchmarkWorker(cases) };
}
