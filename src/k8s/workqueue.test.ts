import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PermanentError, WorkQueue, type WorkQueueOptions } from './workqueue.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const fakeClock = {
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
};

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function queue(handler: WorkQueueOptions['handler'], extra: Partial<WorkQueueOptions> = {}) {
  const q = new WorkQueue({ handler, clock: fakeClock, concurrency: 4, ...extra });
  q.start();
  return q;
}

describe('WorkQueue', () => {
  it('runs a key added many times while waiting only once', async () => {
    const seen: string[] = [];
    const gate = deferred();
    const q = new WorkQueue({
      clock: fakeClock,
      concurrency: 1,
      handler: async (k) => {
        seen.push(k);
        if (k === 'block') await gate.promise;
      },
    });
    q.start();
    q.add('block');
    for (let i = 0; i < 5; i++) q.add('a');
    expect(q.depth).toBe(1);
    gate.resolve();
    await vi.runAllTimersAsync();
    expect(seen).toEqual(['block', 'a']);
  });

  it('never runs one key on two workers at once, and reruns it when it changed meanwhile', async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const gate = deferred();
    const q = queue(async () => {
      calls++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (calls === 1) await gate.promise;
      running--;
    });
    q.add('job-1');
    await vi.advanceTimersByTimeAsync(0);
    q.add('job-1');
    q.add('job-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    gate.resolve();
    await vi.runAllTimersAsync();
    expect(calls).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('retries a failing key with per-key exponential backoff and resets after success', async () => {
    const times: number[] = [];
    const start = Date.now();
    let failuresLeft = 4;
    const q = queue(
      async () => {
        times.push(Date.now() - start);
        if (failuresLeft-- > 0) throw new Error('boom');
      },
      { baseDelayMs: 100 },
    );
    q.add('k');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(times).toEqual([0, 100, 300, 700, 1500]);
    const before = times.length;
    failuresLeft = 1;
    q.add('k');
    await vi.advanceTimersByTimeAsync(150);
    // The failure history was forgotten after the success: the first retry is again 100 ms.
    expect(times.length - before).toBe(2);
  });

  it('drops a key that failed permanently instead of retrying it', async () => {
    let calls = 0;
    const errors: boolean[] = [];
    const q = queue(
      async () => {
        calls++;
        throw new PermanentError('bad spec');
      },
      { onError: (_k, _e, permanent) => errors.push(permanent) },
    );
    q.add('k');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(1);
    expect(errors).toEqual([true]);
  });

  it('honours requeue-after, and an earlier schedule of the same key wins', async () => {
    const times: number[] = [];
    const start = Date.now();
    const q = queue(async () => {
      times.push(Date.now() - start);
      return times.length === 1 ? { requeueAfterMs: 5_000 } : undefined;
    });
    q.add('k');
    await vi.advanceTimersByTimeAsync(1_000);
    q.addAfter('k', 2_000);
    q.addAfter('k', 9_000);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(times).toEqual([0, 3_000]);
    expect(q.delayedCount).toBe(0);
  });

  it('bounds retries of many failing keys by the global token bucket', async () => {
    let calls = 0;
    const q = queue(
      async () => {
        calls++;
        throw new Error('down');
      },
      { baseDelayMs: 1, retryQps: 10, retryBurst: 5, concurrency: 50 },
    );
    for (let i = 0; i < 50; i++) q.add(`k${i}`);
    await vi.advanceTimersByTimeAsync(1_000);
    // 50 first attempts, 5 retries from the burst, and about 10 more per second after it.
    expect(calls).toBeGreaterThanOrEqual(55);
    expect(calls).toBeLessThanOrEqual(50 + 5 + 11);
  });

  it('reports how long a key waited and shuts down after in-flight work', async () => {
    const waits: number[] = [];
    const gate = deferred();
    const q = new WorkQueue({
      clock: fakeClock,
      concurrency: 1,
      onDequeue: (_k, w) => waits.push(w),
      handler: async (k) => {
        if (k === 'slow') await gate.promise;
      },
    });
    q.start();
    q.add('slow');
    q.add('fast');
    await vi.advanceTimersByTimeAsync(250);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(waits).toEqual([0, 250]);
    await q.shutdown();
    q.add('after');
    await vi.advanceTimersByTimeAsync(100);
    expect(waits).toHaveLength(2);
  });

  it('tells what it holds: ready, processing, delayed (how far off) and failing keys', async () => {
    const gate = deferred();
    const q = queue(async (k) => {
      if (k === 'busy') await gate.promise;
      if (k === 'broken') throw new Error('no');
    });
    q.add('busy');
    q.addAfter('soon', 1_000);
    q.addAfter('late', 60_000);
    q.add('broken');
    await vi.advanceTimersByTimeAsync(0);
    expect(q.stats()).toEqual({
      running: true,
      ready: 0,
      processing: 1,
      delayed: 3,
      nextDueInMs: 5,
      lastDueInMs: 60_000,
      failing: 1,
      maxFailures: 1,
    });
    gate.resolve();
    await q.shutdown();
    expect(q.stats()).toMatchObject({ running: false, processing: 0 });
  });
});
