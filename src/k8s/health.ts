/**
 * Whether the apiserver can be reached, judged from the outcome of this process's own
 * calls (every call through the bounded client reports one) and, when the process is
 * idle, from a small probe. Readiness reads it, so a load balancer stops sending clients
 * to a process that cannot answer them while the apiserver is away.
 */
export class ApiserverHealth {
  private lastSuccess = 0;
  private lastFailure = 0;
  private lastReason = '';
  private readonly now: () => number;
  private probe?: { timer: NodeJS.Timeout; users: number };

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  succeeded(): void {
    this.lastSuccess = this.now();
  }

  failed(reason: string): void {
    this.lastFailure = this.now();
    this.lastReason = reason;
  }

  /** Undefined while the latest outcome was a success (or none is known); else why not. */
  unreachable(): string | undefined {
    return this.lastFailure > 0 && this.lastFailure >= this.lastSuccess
      ? `apiserver unreachable: ${this.lastReason}`
      : undefined;
  }

  /**
   * Calls `probe` every `intervalMs` while no other call has finished within that time, so
   * an idle process still notices the apiserver going and coming back. Shared by every
   * part of the process (dev mode runs the api and the controller on one connection);
   * the returned function ends this user's share.
   */
  watch(probe: () => Promise<unknown>, intervalMs: number): () => void {
    if (this.probe) this.probe.users++;
    else {
      let running = false;
      const timer = setInterval(() => {
        const latest = Math.max(this.lastSuccess, this.lastFailure);
        if (running || this.now() - latest < intervalMs) return;
        running = true;
        // The outcome is recorded by the bounded client the probe goes through.
        probe()
          .catch(() => {})
          .finally(() => {
            running = false;
          });
      }, intervalMs);
      timer.unref();
      this.probe = { timer, users: 1 };
    }
    let ended = false;
    return () => {
      if (ended || !this.probe) return;
      ended = true;
      if (--this.probe.users === 0) {
        clearInterval(this.probe.timer);
        this.probe = undefined;
      }
    };
  }
}

/**
 * What the readiness probe reads: a GenerationJob of a name no job has (ids are UUIDs), so
 * the apiserver answers 404 at once. A read of one object gets the request deadline
 * (GENJOBS_KUBE_TIMEOUT); a list would get the list timeout (a minute), and an idle replica
 * would stay ready that long with the apiserver frozen.
 */
export const PROBE_JOB = 'genjobs-readiness-probe';
