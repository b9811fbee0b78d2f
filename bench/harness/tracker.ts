import type { Informer } from '../../src/k8s/informer.ts';

/**
 * Remembers, per object name, when the benchmark's own watch first saw it reach each
 * stage (`started`, `done`, `failed`). Times are this process's performance.now(), the same
 * clock the submit times are taken on, so latencies need no clock agreement.
 */
export class StageTracker<T extends { metadata?: { name?: string } }> {
  readonly seen = new Map<string, { started?: number; done?: number; failed?: number; failure?: string }>();
  private readonly waiters = new Set<() => void>();

  /** `stage` maps an observed object to the stage it shows, if any. */
  constructor(
    informer: Informer<T>,
    stage: (obj: T) => { started?: boolean; done?: boolean; failed?: string },
  ) {
    informer.on((type, obj) => {
      if (type === 'delete') return;
      const name = obj.metadata?.name ?? '';
      const now = performance.now();
      const s = stage(obj);
      const rec = this.seen.get(name) ?? {};
      this.seen.set(name, rec);
      if (s.started) rec.started ??= now;
      if (s.done) rec.done ??= now;
      if (s.failed !== undefined && rec.failed === undefined) {
        rec.failed = now;
        rec.failure = s.failed;
      }
      for (const w of this.waiters) w();
    });
  }

  count(which: 'started' | 'done' | 'failed', names: Iterable<string>): number {
    let n = 0;
    for (const name of names) if (this.seen.get(name)?.[which] !== undefined) n++;
    return n;
  }

  /** Resolves when every name is done; fails at once when one failed, or at the timeout. */
  async allDone(names: readonly string[], timeoutMs: number, what: string): Promise<void> {
    if (!(await this.doneWithin(names, timeoutMs, what))) {
      throw new Error(
        `${what}: ${this.count('done', names)} of ${names.length} done, ${this.count('started', names)} started, within ${Math.round(timeoutMs / 1000)} s`,
      );
    }
  }

  /**
   * Resolves true when every name is done, false when the time is up first (a time box,
   * not an error: what finished by then is still a measurement); fails when one failed.
   */
  async doneWithin(names: readonly string[], timeoutMs: number, what: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const check = () => {
        const failed = names.find((n) => this.seen.get(n)?.failed !== undefined);
        if (failed) {
          finish();
          reject(new Error(`${what} ${failed} failed: ${this.seen.get(failed)?.failure}`));
        } else if (this.count('done', names) === names.length) {
          finish();
          resolve(true);
        }
      };
      const timer = setTimeout(() => {
        finish();
        resolve(false);
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}
