/**
 * Estimated run time per model variant: the catalog's typical duration at first, then an
 * exponentially weighted average of the run times the service actually observes.
 */
export class DurationEstimator {
  private readonly observed = new Map<string, number>();
  private readonly weight: number;

  constructor(weight = 0.2) {
    this.weight = weight;
  }

  observe(variant: string, seconds: number): void {
    if (!(seconds >= 0) || !Number.isFinite(seconds)) return;
    const prev = this.observed.get(variant);
    this.observed.set(variant, prev === undefined ? seconds : prev + this.weight * (seconds - prev));
  }

  runSeconds(variant: string, typicalSeconds: number): number {
    return this.observed.get(variant) ?? typicalSeconds;
  }

  /**
   * When a job submitted now should finish: its own run, plus the queue ahead of it drained
   * `capacity` at a time.
   */
  completionTime(
    variant: string,
    typicalSeconds: number,
    queuedAhead: number,
    capacity: number,
    now: number,
  ): Date {
    const run = this.runSeconds(variant, typicalSeconds);
    const waves = capacity > 0 ? Math.floor(queuedAhead / capacity) : 0;
    return new Date(now + (waves + 1) * run * 1000);
  }
}
