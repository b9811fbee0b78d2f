import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJob } from './run.ts';
import { DirectorySink } from './sink.ts';

/** One worker job the benchmark times. */
export interface WorkerBenchCase {
  name: string;
  capability: string;
  input: Record<string, unknown>;
}

/** What `npm run bench` reports for the worker: the spec's default-cost cases and the 4k image. */
export const WORKER_BENCH_CASES: readonly WorkerBenchCase[] = [
  {
    name: 'text-to-image 1k',
    capability: 'text-to-image',
    input: { prompt: 'a lighthouse at dusk', resolution: '1k' },
  },
  {
    name: 'text-to-image 4k',
    capability: 'text-to-image',
    input: { prompt: 'a lighthouse at dusk', resolution: '4k' },
  },
  {
    name: 'text-to-video 8 s 720p with sound',
    capability: 'text-to-video',
    input: { prompt: 'a lighthouse at dusk', duration: '8', resolution: '720p', has_sound: 'true' },
  },
];

export interface WorkerBenchResult {
  name: string;
  /** Wall time of the whole job (generation, encoding, stills, hand-over to a local sink). */
  seconds: number;
}

/**
 * Times builtin worker jobs one after another, each in a fresh scratch directory with a
 * local directory sink, so the figure is the worker's own time without upload or Pod start.
 */
export async function benchmarkWorker(
  cases: readonly WorkerBenchCase[] = WORKER_BENCH_CASES,
  options: { ffmpeg?: string } = {},
): Promise<WorkerBenchResult[]> {
  const results: WorkerBenchResult[] = [];
  for (const benchCase of cases) {
    const dir = await mkdtemp(join(tmpdir(), 'genjobs-bench-'));
    try {
      const started = performance.now();
      const result = await runJob({
        capability: benchCase.capability,
        runtime: { type: 'builtin' },
        input: benchCase.input,
        scratchDir: dir,
        sink: new DirectorySink(join(dir, 'out'), 'http://bench.invalid/'),
        ffmpeg: options.ffmpeg,
      });
      const seconds = (performance.now() - started) / 1000;
      if (!result.ok)
        throw new Error(`${benchCase.name} failed: ${result.error.code} ${result.error.message}`);
      results.push({ name: benchCase.name, seconds: Number(seconds.toFixed(3)) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
