import { describe, expect, it } from 'vitest';
import { fitRuns, fitWork, median, paced, playQueue, RunTimes, remainingSeconds, Slots } from './eta.ts';

describe('RunTimes', () => {
  it('answers the catalog figure until a variant has enough completions', () => {
    const t = new RunTimes({ minHistory: 3 });
    t.observe('v', 'a', 1, 10);
    t.observe('v', 'b', 2, 12);
    expect(t.runSeconds('v', 240)).toBe(240);
    t.observe('v', 'c', 3, 100);
    expect(t.runSeconds('v', 240)).toBe(12);
  });

  it('counts a job once however often it is observed', () => {
    const t = new RunTimes({ minHistory: 1 });
    for (let i = 0; i < 5; i++) t.observe('v', 'same', 1, 10);
    expect(t.count('v')).toBe(1);
  });

  it('keeps the latest completions by time, whatever order they arrive in', () => {
    const t = new RunTimes({ size: 3, minHistory: 1 });
    t.observe('v', 'new1', 10, 5);
    t.observe('v', 'new2', 11, 5);
    t.observe('v', 'new3', 12, 5);
    t.observe('v', 'old', 1, 500); // older than the window: ignored
    expect(t.runSeconds('v', 99)).toBe(5);
    t.observe('v', 'newest', 13, 50);
    t.observe('v', 'newest2', 14, 50);
    expect(t.count('v')).toBe(3);
    expect(t.runSeconds('v', 99)).toBe(50);
  });

  it('scales by units of work (a video of twice the seconds takes twice as long)', () => {
    const t = new RunTimes({ minHistory: 2 });
    t.observe('v', 'a', 1, 8, { units: 4 });
    t.observe('v', 'b', 2, 16, { units: 8 });
    expect(t.runSeconds('v', 240, { units: 6 })).toBe(12);
  });

  it('learns what a trait of the input costs: 2k images that take twice as long are expected to', () => {
    const t = new RunTimes({ minHistory: 5 });
    for (let i = 0; i < 12; i++) {
      const big = i % 2 === 0;
      t.observe('v', `j${i}`, i, big ? 4 : 2, {
        units: 1,
        traits: [`resolution=${big ? '2k' : '1k'}`, 'aspect_ratio=1:1'],
      });
    }
    expect(t.runSeconds('v', 99, { units: 1, traits: ['resolution=2k', 'aspect_ratio=1:1'] })).toBeCloseTo(4);
    expect(t.runSeconds('v', 99, { units: 1, traits: ['resolution=1k', 'aspect_ratio=1:1'] })).toBeCloseTo(2);
    // A value no run has shown yet: the variant's middle pace, not a guess.
    const unseen = t.runSeconds('v', 99, { units: 1, traits: ['resolution=4k'] });
    expect(unseen).toBeGreaterThan(2);
    expect(unseen).toBeLessThan(4);
  });

  it('tells whether an observation changed the history, and refits only then', () => {
    const t = new RunTimes({ minHistory: 1 });
    expect(t.observe('v', 'a', 1, 8)).toBe(true);
    const fit = t.fit('v');
    expect(t.observe('v', 'a', 1, 8)).toBe(false);
    expect(t.fit('v')).toBe(fit);
    expect(t.observe('v', 'b', 2, 10)).toBe(true);
    expect(t.fit('v')).not.toBe(fit);
  });

  it('ignores impossible observations', () => {
    const t = new RunTimes({ minHistory: 1 });
    t.observe('v', 'a', 1, -1);
    t.observe('v', 'b', 1, Number.NaN);
    t.observe('v', 'c', 1, 3, { units: 0 });
    expect(t.count('v')).toBe(0);
  });
});

describe('playQueue', () => {
  it.each([
    ['free slots start at once', { capacity: 2, runningRemaining: [] }, [10, 10], [0, 0]],
    ['one slot: one after the other', { capacity: 1, runningRemaining: [] }, [10, 20, 5], [0, 10, 30]],
    ['waits for the earliest running job', { capacity: 2, runningRemaining: [30, 4] }, [10, 10], [4, 14]],
    ['more running than slots: the slot frees late', { capacity: 1, runningRemaining: [5, 8] }, [1], [8]],
    ['a paused variant counts as one slot', { capacity: 0, runningRemaining: [] }, [3, 3], [0, 3]],
  ])('%s', (_name, state, runs, starts) => {
    expect(playQueue(state, runs).starts).toEqual(starts);
  });

  it('tells where a job queued next would start', () => {
    expect(playQueue({ capacity: 2, runningRemaining: [5] }, [10, 10]).next).toBe(10);
  });

  it('a variant with a huge capacity costs no more than its jobs (slots free now are counted, not listed)', () => {
    // Listing a billion free slots would take gigabytes and never end in the test's time.
    const runs = Array.from({ length: 1_000 }, () => 3);
    const played = playQueue({ capacity: 1e9, runningRemaining: [1] }, runs);
    expect(played.starts.every((s) => s === 0)).toBe(true);
    expect(played.next).toBe(0);
  });
});

describe('paced', () => {
  it('scales the fit to what the latest runs took', () => {
    const fit = { fixed: 1, perUnit: 1 };
    // The node got three times slower: the latest runs of 1 and 3 units took 6 and 12 s.
    expect(
      paced(fit, [
        { units: 1, seconds: 6 },
        { units: 3, seconds: 12 },
        { units: 1, seconds: 6 },
      ]),
    ).toEqual({
      fixed: 3,
      perUnit: 3,
    });
  });

  it('a history that got faster: the estimate follows within a few completions', () => {
    const t = new RunTimes({ minHistory: 5 });
    for (let i = 0; i < 30; i++) t.observe('v', `slow${i}`, i, 9);
    expect(t.runSeconds('v', 99)).toBe(9);
    for (let i = 0; i < 5; i++) t.observe('v', `fast${i}`, 100 + i, 3);
    expect(t.runSeconds('v', 99)).toBe(3);
  });
});

describe('fitWork', () => {
  it('separates a trait from the units: 8 s videos with sound take longer, and the line stays that of the silent ones', () => {
    const samples = [4, 6, 8, 4, 6, 8, 4, 6, 8, 4, 6, 8].map((units, i) => {
      const sound = i % 2 === 0;
      return { units, traits: [`has_sound=${sound}`], seconds: (1 + 0.5 * units) * (sound ? 1.5 : 1) };
    });
    const fit = fitWork(samples);
    const factor = (trait: string) => fit.factors?.get(trait) ?? Number.NaN;
    expect(factor('has_sound=true') / factor('has_sound=false')).toBeCloseTo(1.5);
    for (const s of samples) {
      const f = fit.factors?.get(s.traits[0]!) ?? 1;
      expect((fit.fixed + fit.perUnit * s.units) * f).toBeCloseTo(s.seconds);
    }
  });

  it('a trait seen in fewer than three runs, or in every run, gets no factor', () => {
    const samples = [
      ...Array.from({ length: 6 }, () => ({ units: 1, traits: ['r=1k', 'a=1:1'], seconds: 2 })),
      { units: 1, traits: ['r=2k', 'a=1:1'], seconds: 8 },
      { units: 1, traits: ['r=2k', 'a=1:1'], seconds: 8 },
    ];
    const fit = fitWork(samples);
    expect(fit.factors?.get('r=2k')).toBeUndefined();
    expect(fit.factors?.get('a=1:1')).toBeUndefined();
    expect(fit.fixed + fit.perUnit).toBe(2);
  });
});

describe('Slots', () => {
  it('never starts a job before now, even on a slot that freed earlier', () => {
    const slots = new Slots(1, [100]);
    expect(slots.take(50, 500)).toBe(500);
    expect(slots.next(500)).toBe(550);
    expect(slots.take(50, 0)).toBe(550);
  });
});

describe('fitRuns', () => {
  it('finds the fixed part and the part per unit of work', () => {
    const samples = [4, 6, 8, 4, 6, 8].map((units) => ({ units, seconds: 1.5 + 0.25 * units }));
    const fit = fitRuns(samples);
    expect(fit.fixed).toBeCloseTo(1.5);
    expect(fit.perUnit).toBeCloseTo(0.25);
  });

  it('a few runs slowed by a busy node barely move it', () => {
    const samples = [4, 6, 8, 4, 6, 8, 4, 6, 8].map((units) => ({ units, seconds: 1 + 0.5 * units }));
    samples[0]!.seconds = 40;
    samples[4]!.seconds = 60;
    const fit = fitRuns(samples);
    expect(fit.fixed + fit.perUnit * 6).toBeCloseTo(4, 0);
  });

  it('one size of work only: the median run, proportional to the units', () => {
    expect(
      fitRuns([
        { units: 1, seconds: 2 },
        { units: 1, seconds: 30 },
        { units: 1, seconds: 3 },
      ]),
    ).toEqual({
      fixed: 0,
      perUnit: 3,
    });
  });

  it('a line that would need a negative fixed part falls back to runs proportional to the work', () => {
    const fit = fitRuns([
      { units: 4, seconds: 1 },
      { units: 8, seconds: 8 },
    ]);
    expect(fit.fixed).toBe(0);
  });
});

describe('helpers', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('a running job past its expected time still has a little left', () => {
    expect(remainingSeconds(10, 4)).toBe(6);
    expect(remainingSeconds(10, 40)).toBeGreaterThan(0);
  });
});
