import { describe, expect, it } from 'vitest';
import { sumCpu } from '../../bench/harness/cpu.ts';
import { latency, mergeLoads, timedLoop } from '../../bench/harness/stats.ts';
import { sumWrites, type WriteCounts } from '../../bench/harness/writes.ts';

/** A measurement told in rounds (bench/scenarios/api.ts) adds up to the one it stands for. */
describe('bench: rounds of one load merge into one figure', () => {
  it('counts operations over the summed time and takes latency over every sample', async () => {
    const a = await timedLoop(2, 6, async () => {});
    expect(a.samples).toHaveLength(6);
    expect(a.result.count).toBe(6);
    const parts = [
      { result: { ...latency([1, 2, 3]), concurrency: 4, seconds: 1, perSecond: 3 }, samples: [1, 2, 3] },
      { result: { ...latency([10, 20]), concurrency: 4, seconds: 3, perSecond: 0.67 }, samples: [10, 20] },
    ];
    const merged = mergeLoads(parts);
    // 5 operations in 4 s, not the mean of 3/s and 0.67/s.
    expect(merged).toMatchObject({
      concurrency: 4,
      count: 5,
      seconds: 4,
      perSecond: 1.3,
      p50Ms: 3,
      maxMs: 20,
    });
    expect(merged.p99Ms).toBe(20);
  });

  it('adds writes by resource and CPU by process, per item of all rounds', () => {
    const w = (post: number, put: number, conflicts = 0): WriteCounts => ({
      total: post + put,
      byResource: { 'generationjobs POST': post, ...(put ? { 'accounts/status PUT': put } : {}) },
      conflicts,
      conflictsByResource: conflicts ? { 'accounts/status PUT': conflicts } : {},
      errors: 0,
      errorsByResource: {},
    });
    expect(sumWrites([w(10, 1), w(20, 0, 2)])).toEqual({
      total: 31,
      byResource: { 'generationjobs POST': 30, 'accounts/status PUT': 1 },
      conflicts: 2,
      conflictsByResource: { 'accounts/status PUT': 2 },
      errors: 0,
      errorsByResource: {},
    });
    const cpu = sumCpu(
      [
        { seconds: { api: 1, 'kube-apiserver': 2 }, msPerItem: {}, totalMsPerItem: 0 },
        { seconds: { api: 3, 'kube-apiserver': 2 }, msPerItem: {}, totalMsPerItem: 0 },
      ],
      2000,
    );
    expect(cpu.seconds).toEqual({ api: 4, 'kube-apiserver': 4 });
    expect(cpu.msPerItem).toEqual({ api: 2, 'kube-apiserver': 2 });
    expect(cpu.totalMsPerItem).toBe(4);
  });
});
