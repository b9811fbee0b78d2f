/**
 * Run-time history per model variant and the completion estimate built on it. The
 * estimate is what the service observes: the median of a variant's last completions
 * (per unit of work: a video's seconds), falling back to the catalog's `typicalSeconds`
 * until there are enough of them, and the variant's slots as they free up.
 */

/** Completions kept per variant: recent enough to follow a change, enough for a stable median. */
export const HISTORY_SIZE = 50;
/** Completions a variant needs before its median replaces the catalog's typical time. */
export const MIN_HISTORY = 5;

interface Sample {
  jobId: string;
  /** When the job completed (ms): the window keeps the latest, whatever order they arrive in. */
  at: number;
  /** Run seconds per unit of work. */
  perUnit: number;
}

/**
 * The last {@link HISTORY_SIZE} completions of each variant. A job is counted once however
 * often the cache shows it (its status changes after completion: webhook delivery state).
 */
export class RunTimes {
  private readonly samples = new Map<string, Sample[]>();
  private readonly size: number;
  private readonly minHistory: number;

  constructor(opts: { size?: number; minHistory?: number } = {}) {
    this.size = opts.size ?? HISTORY_SIZE;
    this.minHistory = opts.minHistory ?? MIN_HISTORY;
  }

  /** Records a completed job's run: `seconds` for `units` of work (1 for an image). */
  observe(variant: string, jobId: string, completedAt: number, seconds: number, units = 1): void {
    if (!Number.isFinite(seconds) || seconds < 0 || !(units > 0) || !Number.isFinite(completedAt)) return;
    const list = this.samples.get(variant) ?? [];
    if (list.some((s) => s.jobId === jobId)) return;
    if (list.length >= this.size && completedAt <= list[0]!.at) return;
    const at = list.findIndex((s) => s.at > completedAt);
    list.splice(at < 0 ? list.length : at, 0, { jobId, at: completedAt, perUnit: seconds / units });
    if (list.length > this.size) list.shift();
    this.samples.set(variant, list);
  }

  /** How many completions of the variant are remembered. */
  count(variant: string): number {
    return this.samples.get(variant)?.length ?? 0;
  }

  /** Expected run seconds of a job of `units` work: observed median, or the catalog's figure. */
  runSeconds(variant: string, typicalSeconds: number, units = 1): number {
    const list = this.samples.get(variant);
    if (!list || list.length < this.minHistory) return typicalSeconds;
    return median(list.map((s) => s.perUnit)) * units;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The slots of one variant, as the controller fills them: oldest waiting job first. */
export interface QueueState {
  /** The variant's slots (runtime maxConcurrency). */
  capacity: number;
  /** Expected remaining seconds of each job holding a slot now. */
  runningRemaining: number[];
}

/**
 * Plays a variant's queue forward: the slots free up as the running jobs end, and each
 * waiting job (oldest first, with its expected run seconds) takes the first free slot.
 * Answers when each waiting job starts, in seconds from now, and when the slots are free
 * after all of them (where a job queued next would start). A paused variant (capacity 0)
 * never starts a job: it is estimated as if it had one slot, the honest best guess.
 */
export function playQueue(
  q: QueueState,
  waitingRuns: readonly number[],
): { starts: number[]; free: number[] } {
  const slots = Math.max(1, q.capacity);
  const running = q.runningRemaining.map((r) => Math.max(0, r)).sort((a, b) => a - b);
  // More jobs running than slots (the capacity was lowered): the first slot frees when
  // enough of them have ended, so only the last `slots` end times matter.
  const free = running.slice(Math.max(0, running.length - slots));
  while (free.length < slots) free.unshift(0);
  const starts = waitingRuns.map((run) => {
    const start = free.shift()!;
    insertSorted(free, start + run);
    return start;
  });
  return { starts, free };
}

function insertSorted(list: number[], value: number): void {
  const at = list.findIndex((t) => t > value);
  list.splice(at < 0 ? list.length : at, 0, value);
}

/**
 * Seconds left of a running job: its expected run minus what has passed, and never less
 * than a small margin, since a job past its expected time has not finished yet.
 */
export function remainingSeconds(expectedRun: number, elapsed: number): number {
  return Math.max(expectedRun - elapsed, Math.min(expectedRun, 5) * 0.2);
}
