import TinyQueue from 'tinyqueue';

/**
 * The one work queue of the controllers, in the manner of client-go's rate-limited queue:
 * keys, not objects; a key waiting twice is queued once; a key being processed is never
 * handed to a second worker (if it changes meanwhile it runs again afterwards); failures
 * come back after a per-key exponential backoff, bounded by a global token bucket; and a
 * handler can ask to see a key again after a delay (requeue-after), which is how periodic
 * work is done: no sleeps, no timer per object, one timer for the whole queue.
 */

export interface HandlerResult {
  /** Process the key again after this many ms (periodic checks, deadlines). */
  requeueAfterMs?: number;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to ask for simply returns.
export type Handler = (key: string) => Promise<HandlerResult | undefined | void>;

/** An error that retrying cannot fix: the key is dropped instead of backed off. */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface WorkQueueOptions {
  handler: Handler;
  /** Keys processed at once (each key by at most one of them). */
  concurrency?: number;
  /** First retry delay of a failing key; doubles per consecutive failure. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Global limit on retries: tokens per second and bucket size. */
  retryQps?: number;
  retryBurst?: number;
  clock?: Clock;
  onError?: (key: string, err: unknown, permanent: boolean) => void;
  /** Called with the wait time of each key when a worker takes it (queue latency metric). */
  onDequeue?: (key: string, waitedMs: number) => void;
}

interface Delayed {
  at: number;
  key: string;
}

/**
 * What a queue holds, for an operator's look at a controller that seems idle: whether keys
 * wait to run, wait for a time (and how far off), or back off after failures.
 */
export interface WorkQueueStats {
  running: boolean;
  ready: number;
  processing: number;
  delayed: number;
  /** In how many ms the soonest and the latest delayed key come due (absent with none). */
  nextDueInMs?: number;
  lastDueInMs?: number;
  /** Keys whose last run failed, and the most consecutive failures of one key. */
  failing: number;
  maxFailures: number;
}

export class WorkQueue {
  private readonly opts: Required<Omit<WorkQueueOptions, 'onError' | 'onDequeue'>> &
    Pick<WorkQueueOptions, 'onError' | 'onDequeue'>;
  private readonly ready: string[] = [];
  /** Keys waiting in `ready` (or to be re-added once processing ends), with when they were added. */
  private readonly dirty = new Map<string, number>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new TinyQueue<Delayed>([], (a, b) => a.at - b.at);
  private readonly delayedAt = new Map<string, number>();
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  private active = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];
  private tokens: number;
  private tokensAt: number;

  constructor(options: WorkQueueOptions) {
    this.opts = {
      concurrency: 4,
      baseDelayMs: 5,
      maxDelayMs: 5 * 60_000,
      retryQps: 10,
      retryBurst: 100,
      clock: systemClock,
      ...options,
    };
    this.tokens = this.opts.retryBurst;
    this.tokensAt = this.opts.clock.now();
  }

  /** Keys waiting to be processed now (not counting delayed ones). */
  get depth(): number {
    return this.ready.length;
  }

  /** Keys scheduled for later. */
  get delayedCount(): number {
    return this.delayedAt.size;
  }

  /** A snapshot for diagnostics; O(delayed keys). */
  stats(): WorkQueueStats {
    const now = this.opts.clock.now();
    // Loops, not Math.min(...): a backlog of delayed keys can outnumber a call's arguments.
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const at of this.delayedAt.values()) {
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    let maxFailures = 0;
    for (const n of this.failures.values()) maxFailures = Math.max(maxFailures, n);
    return {
      running: this.running,
      ready: this.ready.length,
      processing: this.processing.size,
      delayed: this.delayedAt.size,
      ...(this.delayedAt.size > 0 ? { nextDueInMs: first - now, lastDueInMs: last - now } : {}),
      failing: this.failures.size,
      maxFailures,
    };
  }

  start(): void {
    this.running = true;
    this.pump();
  }

  /** Stops handing out keys; resolves when in-flight handlers finish. */
  async shutdown(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  add(key: string): void {
    if (this.dirty.has(key)) return;
    this.dirty.set(key, this.opts.clock.now());
    if (!this.processing.has(key)) this.ready.push(key);
    this.pump();
  }

  /** Adds the key after `ms`; an earlier pending schedule of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.opts.clock.now() + ms;
    const existing = this.delayedAt.get(key);
    if (existing !== undefined && existing <= at) return;
    this.delayedAt.set(key, at);
    this.delayed.push({ at, key });
    this.arm();
  }

  /** Forgets a key's failure history (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Adds the key after its per-key backoff and the global retry budget allow. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const perKey = Math.min(this.opts.baseDelayMs * 2 ** n, this.opts.maxDelayMs);
    this.addAfter(key, Math.max(perKey, this.takeToken()));
  }

  private takeToken(): number {
    const now = this.opts.clock.now();
    this.tokens = Math.min(
      this.opts.retryBurst,
      this.tokens + ((now - this.tokensAt) / 1000) * this.opts.retryQps,
    );
    this.tokensAt = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.opts.retryQps) * 1000;
  }

  private arm(): void {
    const next = this.delayed.peek();
    if (!next || !this.running || next.at >= this.timerAt) return;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timerAt = next.at;
    this.timer = this.opts.clock.setTimeout(() => this.fire(), Math.max(0, next.at - this.opts.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.opts.clock.now();
    while ((this.delayed.peek()?.at ?? Number.POSITIVE_INFINITY) <= now) {
      const { at, key } = this.delayed.pop()!;
      // A stale heap entry (the key was rescheduled earlier) is skipped.
      if (this.delayedAt.get(key) !== at) continue;
      this.delayedAt.delete(key);
      this.add(key);
    }
    this.arm();
  }

  private pump(): void {
    if (!this.running) return;
    this.arm();
    while (this.active < this.opts.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      const addedAt = this.dirty.get(key) ?? this.opts.clock.now();
      this.dirty.delete(key);
      this.processing.add(key);
      this.active++;
      this.opts.onDequeue?.(key, this.opts.clock.now() - addedAt);
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    try {
      const result = await this.opts.handler(key);
      this.forget(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const permanent = err instanceof PermanentError;
      this.opts.onError?.(key, err, permanent);
      if (permanent) this.forget(key);
      else this.addRateLimited(key);
    } finally {
      this.processing.delete(key);
      this.active--;
      // Changed while it was being processed: run it again now that no one holds it.
      if (this.dirty.has(key)) this.ready.push(key);
      if (this.active === 0 && !this.running) for (const w of this.idleWaiters.splice(0)) w();
      this.pump();
    }
  }
}
