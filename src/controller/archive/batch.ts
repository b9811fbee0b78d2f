/**
 * Gathers items added within a short linger (or until `max`) into one write, so many jobs
 * finishing at once cost one INSERT, not one each. Each add resolves or rejects with the
 * write that carried it.
 */
export class Batcher<T> {
  private items: T[] = [];
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly write: (items: T[]) => Promise<void>;
  private readonly lingerMs: number;
  private readonly max: number;

  constructor(write: (items: T[]) => Promise<void>, options: { lingerMs?: number; max?: number } = {}) {
    this.write = write;
    this.lingerMs = options.lingerMs ?? 10;
    this.max = options.max ?? 200;
  }

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.max) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const [items, waiters] = [this.items, this.waiters];
    this.items = [];
    this.waiters = [];
    this.write(items).then(
      () => {
        for (const w of waiters) w.resolve();
      },
      (err) => {
        for (const w of waiters) w.reject(err);
      },
    );
  }
}
