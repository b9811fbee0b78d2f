import { describe, expect, it } from 'vitest';
import { benchmarkWorker, WORKER_BENCH_CASES } from './bench.ts';

describe('benchmarkWorker', () => {
  it('times each case and names it', async () => {
    const [result] = await benchmarkWorker(WORKER_BENCH_CASES.slice(0, 1));
    expect(result?.name).toBe('text-to-image 1k');
    expect(result?.seconds).toBeGreaterThan(0);
  });

  it('refuses to report a time for a job that failed', async () => {
    const broken = [{ name: 'bad', capability: 'text-to-image', input: { resolution: '9k' } }];
    await expect(benchmarkWorker(broken)).rejects.toThrow('bad failed: GENERATION_FAILED');
  });
});
