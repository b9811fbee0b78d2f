interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Look-ups by key that arrive while earlier ones are still running are answered together,
 * by one query. The first `maxInFlight` look-ups go at once, so an idle archive adds no
 * wait; the rest wait for one of those to end and then go as one batch (up to `maxBatch`
 * keys). At 16 concurrent GETs of archived jobs that is one query for several jobs instead
 * of one each: fewer round trips, and PostgreSQL's backends and the api wake less often on
 * cores they share (DataLoader's batching, bounded by what is in flight rather than a timer).
 */
export class Coalescer<V> {
  private readonly fetch: (keys: string[]) => Promise<Map<string, V>>;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private readonly waiting = new Map<string, Array<Waiter<V>>>();
  private inFlight = 0;

  constructor(fetch: (keys: string[]) => Promise<Map<string, V>>, maxInFlight = 2, maxBatch = 100) {
    this.fetch = fetch;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** The value of `key`, or undefined when the fetch found none. A failed fetch fails every look-up in it. */
  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.send();
    });
  }

  private send(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.size > 0) {
      const batch = new Map<string, Array<Waiter<V>>>();
      for (const [key, waiters] of this.waiting) {
        batch.set(key, waiters);
        this.waiting.delete(key);
        if (batch.size >= this.maxBatch) break;
      }
      this.inFlight++;
      // Through a promise, so a fetch that throws fails its batch as one that rejects does.
      void Promise.resolve()
        .then(() => this.fetch([...batch.keys()]))
        .then(
          (found) => {
            for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.get(key));
          },
          (err: unknown) => {
            for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.send();
        });
    }
  }
}
