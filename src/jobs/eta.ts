import TinyQueue from 'tinyqueue';

/**
 * Run-time history per model variant and the completion estimate built on it. The
 * estimate is what the service observes: a variant's recent completions, fitted as a fixed
 * part plus a part per unit of work (a video's seconds), times a factor per input choice
 * that runs longer or shorter (`resolution=2k`), falling back to the catalog's
 * `typicalSeconds` until there are enough of them, and the variant's slots as they free up.
 */

/** Completions kept per variant: recent enough to follow a change, enough for a stable fit. */
export const HISTORY_SIZE = 50;
/** Completions a variant needs before its history replaces the catalog's typical time. */
export const MIN_HISTORY = 5;

/**
 * The work a job asks for, as far as its run time goes: `units` (a video's seconds, 1 for an
 * image) and `traits`, the closed-set choices of its input (`resolution=2k`) that may make
 * a run longer or shorter by a factor the history shows.
 */
export interface Work {
  units: number;
  traits?: readonly string[];
}

/** A job of one unit, no traits: what a variant without a per-unit field always runs. */
export const ONE: Work = { units: 1 };

/** A trait scales estimates once this many remembered runs have it: one odd run says nothing. */
export const MIN_TRAIT_RUNS = 3;

interface Sample extends Work {
  jobId: string;
  /** When the job completed (ms): the window keeps the latest, whatever order they arrive in. */
  at: number;
  seconds: number;
}

/**
 * Run seconds of a job: `(fixed + perUnit × units) × Π factors[trait]` over the job's traits
 * (a trait without a factor counts as 1).
 */
export interface RunFit {
  fixed: number;
  perUnit: number;
  factors?: ReadonlyMap<string, number>;
}

/** What the fit expects a job of `work` to run, in seconds. */
export function expectedSeconds(fit: RunFit, work: Work): number {
  return (fit.fixed + fit.perUnit * work.units) * traitFactor(fit.factors, work.traits);
}

function traitFactor(
  factors: ReadonlyMap<string, number> | undefined,
  traits: readonly string[] | undefined,
): number {
  let f = 1;
  if (factors) for (const t of traits ?? []) f *= factors.get(t) ?? 1;
  return f;
}

/**
 * Completions that set the current pace of a variant: its run times are fitted over the
 * whole history, then scaled to what the latest few took, so the estimate follows a node
 * that got busier or quieter within a few jobs instead of a few dozen.
 */
export const RECENT = 9;

/**
 * The last {@link HISTORY_SIZE} completions of each variant, and the run time they predict.
 * A job is counted once however often the cache shows it (its status changes after
 * completion: webhook delivery state). The fit is computed once per change of the history,
 * never per question: estimates are asked for on every submit and every queue move.
 */
export class RunTimes {
  private readonly samples = new Map<string, Sample[]>();
  private readonly fits = new Map<string, RunFit | undefined>();
  private readonly size: number;
  private readonly minHistory: number;

  constructor(opts: { size?: number; minHistory?: number } = {}) {
    this.size = opts.size ?? HISTORY_SIZE;
    this.minHistory = opts.minHistory ?? MIN_HISTORY;
  }

  /**
   * Records a completed job's run: `seconds` for its `work`. True when the history changed
   * (estimates of the variant may have moved).
   */
  observe(variant: string, jobId: string, completedAt: number, seconds: number, work: Work = ONE): boolean {
    if (!Number.isFinite(seconds) || seconds < 0 || !(work.units > 0) || !Number.isFinite(completedAt))
      return false;
    const list = this.samples.get(variant) ?? [];
    if (list.some((s) => s.jobId === jobId)) return false;
    if (list.length >= this.size && completedAt <= list[0]!.at) return false;
    const at = list.findIndex((s) => s.at > completedAt);
    list.splice(at < 0 ? list.length : at, 0, {
      jobId,
      at: completedAt,
      seconds,
      units: work.units,
      traits: work.traits,
    });
    if (list.length > this.size) list.shift();
    this.samples.set(variant, list);
    this.fits.delete(variant);
    return true;
  }

  /** How many completions of the variant are remembered. */
  count(variant: string): number {
    return this.samples.get(variant)?.length ?? 0;
  }

  /** Expected run seconds of a job of `work`: from the observed fit, or the catalog's figure. */
  runSeconds(variant: string, typicalSeconds: number, work: Work = ONE): number {
    const fit = this.fit(variant);
    return fit ? expectedSeconds(fit, work) : typicalSeconds;
  }

  /** The variant's fit, or undefined until it has {@link MIN_HISTORY} completions. */
  fit(variant: string): RunFit | undefined {
    if (this.fits.has(variant)) return this.fits.get(variant);
    const list = this.samples.get(variant);
    const fit =
      list && list.length >= this.minHistory ? paced(fitWork(list), list.slice(-RECENT)) : undefined;
    this.fits.set(variant, fit);
    return fit;
  }
}

/**
 * A robust line through (units, seconds): Theil–Sen, the median of the slopes between
 * samples of different units and the median of what is left. A few runs slowed by a busy
 * node move it little, which a least-squares line would follow. Starting a worker costs
 * the same for a 4 s and an 8 s video, so a fixed part is fitted, not assumed zero. With
 * one size of work only (every image) the median run scales with the units, as before.
 */
export function fitRuns(samples: ReadonlyArray<{ seconds: number; units: number }>): RunFit {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const a = samples[i]!;
      const b = samples[j]!;
      if (a.units !== b.units) slopes.push((b.seconds - a.seconds) / (b.units - a.units));
    }
  }
  const proportional = () => ({ fixed: 0, perUnit: median(samples.map((s) => s.seconds / s.units)) });
  if (slopes.length === 0) return proportional();
  const perUnit = Math.max(0, median(slopes));
  const fixed = median(samples.map((s) => s.seconds - perUnit * s.units));
  // A negative fixed part is noise, not physics: fall back to runs proportional to the work.
  return fixed >= 0 ? { fixed, perUnit } : proportional();
}

/**
 * {@link fitRuns} with the factor of each trait: the median of what its runs took over what
 * the line expects, relative to the median of all runs (2k images that take 1.6 times what
 * 1k ones do get 1.6 times the factor). The line is then fitted again with the factors
 * divided out, so a history of mostly 2k images does not set the pace of a 1k one. Traits
 * of different properties are taken as independent: correlated ones would count twice.
 */
export function fitWork(samples: ReadonlyArray<Work & { seconds: number }>): RunFit {
  const line = fitRuns(samples);
  const ratios = samples.map((s) => s.seconds / Math.max(1e-9, expectedSeconds(line, s)));
  const overall = median(ratios);
  const byTrait = new Map<string, number[]>();
  samples.forEach((s, i) => {
    for (const t of s.traits ?? []) {
      const mine = byTrait.get(t) ?? [];
      mine.push(ratios[i]!);
      byTrait.set(t, mine);
    }
  });
  const factors = new Map<string, number>();
  for (const [trait, mine] of byTrait) {
    // A trait every run has is the variant's pace, not a difference between its runs.
    if (mine.length < MIN_TRAIT_RUNS || mine.length === samples.length) continue;
    const factor = median(mine) / overall;
    if (Number.isFinite(factor) && factor > 0) factors.set(trait, factor);
  }
  if (factors.size === 0) return line;
  const plain = samples.map((s) => ({ units: s.units, seconds: s.seconds / traitFactor(factors, s.traits) }));
  return { ...fitRuns(plain), factors };
}

/**
 * The fit scaled by how the latest runs compare with it (the median ratio, so one slow run
 * moves it little): the shape (fixed part, part per unit) comes from the whole history, the
 * pace from the latest runs.
 */
export function paced(fit: RunFit, latest: ReadonlyArray<Work & { seconds: number }>): RunFit {
  const ratios = latest.flatMap((s) => {
    const expected = expectedSeconds(fit, s);
    return expected > 0 ? [s.seconds / expected] : [];
  });
  if (ratios.length === 0) return fit;
  const scale = median(ratios);
  return { ...fit, fixed: fit.fixed * scale, perUnit: fit.perUnit * scale };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The slots of one variant as the controller fills them, oldest waiting job first: when
 * each slot frees up (ms). Slots free now are counted, not listed, so a variant with a
 * capacity of 100,000 costs what one with 4 does; the busy ones are a min-heap.
 */
export class Slots {
  /** Slots free from the start. */
  private idle: number;
  /** When each busy slot frees up, soonest first. */
  private readonly busy: TinyQueue<number>;

  /**
   * `capacity`: the variant's slots (a paused variant, 0, is played as one: its waiting jobs
   * get no estimate, but a job ahead of them may still be running). `busyUntil`: when each running job is expected to end;
   * with more running than slots (the capacity was lowered) only the latest ends matter.
   */
  constructor(capacity: number, busyUntil: readonly number[]) {
    const slots = Math.max(1, capacity);
    const ends = [...busyUntil].sort((a, b) => a - b);
    this.busy = new TinyQueue(ends.slice(Math.max(0, ends.length - slots)), (a, b) => a - b);
    this.idle = slots - this.busy.length;
  }

  /** When the next job would start, no earlier than `now`. */
  next(now: number): number {
    return this.idle > 0 ? now : Math.max(now, this.busy.peek()!);
  }

  /** Starts a job of `runMs` on the first free slot; answers when it starts. */
  take(runMs: number, now: number): number {
    const start = this.next(now);
    if (this.idle > 0) this.idle--;
    else this.busy.pop();
    this.busy.push(start + runMs);
    return start;
  }
}

/** The slots of one variant, as the controller fills them: oldest waiting job first. */
export interface QueueState {
  /** The variant's slots (runtime maxConcurrency). */
  capacity: number;
  /** Expected remaining seconds of each job holding a slot now. */
  runningRemaining: number[];
}

/**
 * Plays a variant's queue forward from now (0): the slots free up as the running jobs end,
 * and each waiting job (in admission order, with its expected run seconds) takes the first free
 * slot. Answers when each waiting job starts, and when a job queued after all of them would.
 */
export function playQueue(q: QueueState, waitingRuns: readonly number[]): { starts: number[]; next: number } {
  const slots = new Slots(
    q.capacity,
    q.runningRemaining.map((r) => Math.max(0, r)),
  );
  const starts = waitingRuns.map((run) => slots.take(run, 0));
  return { starts, next: slots.next(0) };
}

/**
 * Seconds left of a running job: its expected run minus what has passed, and never less
 * than a small margin, since a job past its expected time has not finished yet.
 */
export function remainingSeconds(expectedRun: number, elapsed: number): number {
  return Math.max(expectedRun - elapsed, Math.min(expectedRun, 5) * 0.2);
}
