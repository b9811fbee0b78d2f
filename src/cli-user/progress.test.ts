import { describe, expect, it } from 'vitest';
import type { Job } from '../client/index.ts';
import { bar, clock, fraction, liveLine, Progress, plainLine } from './progress.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const job = (j: Partial<Job>): Job =>
  ({
    jobId: 'j1',
    status: 'pending',
    progress: 0,
    output: null,
    outputs: null,
    error: null,
    createdAt: new Date(T0).toISOString(),
    completedAt: null,
    model: 'm',
    costMicroCents: 1,
    ...j,
  }) as Job;

describe('progress', () => {
  it.each([
    [0, '0:00'],
    [61, '1:01'],
    [3725, '1:02:05'],
  ])('clock(%i) = %s', (s, text) => expect(clock(s)).toBe(text));

  it('bar', () => {
    expect(bar(0.5, 10)).toBe('[#####-----]');
    expect(bar(2, 4)).toBe('[####]');
  });

  it('a processing job moves with time towards its ETA, never to 100% until it completes', () => {
    const p = job({ status: 'processing', estimatedCompletionTime: new Date(T0 + 10_000).toISOString() });
    expect(fraction(p, T0 + 5_000, T0)).toBe(0.5);
    expect(fraction(p, T0 + 50_000, T0)).toBe(0.99);
    expect(fraction(job({ status: 'completed' }), T0, undefined)).toBe(1);
    expect(fraction(job({ status: 'failed' }), T0, T0)).toBe(0);
  });

  it('shows the queue position and the ETA of a waiting job', () => {
    const w = job({ queuePosition: 3, estimatedCompletionTime: new Date(T0 + 90_000).toISOString() });
    expect(liveLine(w, T0, T0, undefined)).toMatch(
      /^pending +queue 3 +ETA 1:30 +elapsed 0:00 +\[-{20}\] +0%$/,
    );
    expect(plainLine(job({ queuePosition: 0 }), T0, T0)).toBe(
      '2026-01-01T00:00:00.000Z j1 pending next in queue elapsed 0:00',
    );
  });

  it("counts the elapsed time from the job's creation, not from when the watching began", () => {
    const lines: string[] = [];
    const out = { isTTY: false, write: (l: string) => lines.push(l) } as unknown as NodeJS.WriteStream;
    let now = T0 + 150_000;
    const p = new Progress(out, { now: () => now });
    p.update(job({}));
    now += 1_000;
    p.update(job({ queuePosition: 0 }));
    expect(lines.map((l) => /elapsed (\S+)/.exec(l)?.[1])).toEqual(['2:30', '2:31']);
    // A service clock ahead of this one's: counted from when the watching began, never below 0.
    const ahead: string[] = [];
    const q = new Progress(
      { isTTY: false, write: (l: string) => ahead.push(l) } as unknown as NodeJS.WriteStream,
      {
        now: () => T0,
      },
    );
    q.update(job({ createdAt: new Date(T0 + 5_000).toISOString() }));
    expect(ahead[0]).toContain('elapsed 0:00');
    // A finished job's time is its run's, however long after its end it is watched.
    now += 600_000;
    p.update(job({ status: 'completed', completedAt: new Date(T0 + 161_000).toISOString() }));
    expect(lines.at(-1)).toContain('elapsed 2:41');
  });
});
