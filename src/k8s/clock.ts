import type { Logger } from '../log.ts';

/**
 * This process's reading of the apiserver's clock: the local clock plus an offset learned
 * from the `Date` header of the apiserver's answers. The service compares times other
 * processes wrote (the apiserver's creationTimestamp, a Pod's start, a credit lease's expiry
 * written by an api replica) with its own now; with every process on the apiserver's clock,
 * a node whose clock drifted (no NTP, a VM resumed) does not close another replica's lease
 * early, nor fail every job's Pod as having waited too long.
 *
 * A `Date` header has whole seconds, so one answer says the offset lies in an interval a
 * second wide (plus the round trip): the offset moves only when an answer proves it wrong by
 * more than {@link TOLERANCE_MS}, so synchronized clocks keep an offset of 0 and none jitters.
 */
export class ClusterClock {
  private offset = 0;
  private readonly local: () => number;
  private readonly listeners: Array<(offsetMs: number) => void> = [];

  constructor(local: () => number = Date.now) {
    this.local = local;
  }

  /** Hears each change of the offset (a log line: this node's clock is off). */
  watch(listener: (offsetMs: number) => void): void {
    this.listeners.push(listener);
  }

  /** The apiserver's time, as this process reads it (ms since the epoch). */
  now(): number {
    return this.local() + this.offset;
  }

  /** What is added to the local clock (ms); 0 while the two agree within the tolerance. */
  offsetMs(): number {
    return this.offset;
  }

  /** The local time, for a request's send and receive around an answer. */
  localNow(): number {
    return this.local();
  }

  /**
   * An answer's `Date` header, sent by the apiserver at some moment between `sentAt` and
   * `receivedAt` (local times): moves the offset to the middle of what it allows when the
   * current one lies outside by more than the tolerance.
   */
  observe(date: string | undefined, sentAt: number, receivedAt: number): void {
    if (!date) return;
    const server = Date.parse(date);
    if (Number.isNaN(server)) return;
    const low = server - receivedAt;
    const high = server + 1_000 - sentAt;
    if (this.offset >= low - TOLERANCE_MS && this.offset <= high + TOLERANCE_MS) return;
    const next = Math.round((low + high) / 2);
    // Within the tolerance of 0, the clocks agree: no offset at all.
    this.offset = Math.abs(next) <= TOLERANCE_MS ? 0 : next;
    for (const l of this.listeners) l(this.offset);
  }
}

/** How far an answer may prove the offset wrong before it moves. */
const TOLERANCE_MS = 1_000;

/** Says in the log when this process's clock and the apiserver's part (or agree again). */
export function watchClock(kube: { clock: ClusterClock }, log: Logger): void {
  kube.clock.watch((offsetMs) => {
    if (offsetMs === 0) return log.info("this node's clock agrees with the apiserver's again");
    log.warn(
      { offsetSeconds: Math.round(offsetMs / 100) / 10 },
      `this node's clock is ${Math.abs(Math.round(offsetMs / 1000))} s ${offsetMs > 0 ? 'behind' : 'ahead of'} the apiserver's: the service keeps the apiserver's time; fix the node's time sync (NTP)`,
    );
  });
}
