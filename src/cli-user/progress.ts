import type { Job } from '../client/index.ts';

/** Seconds as m:ss (or h:mm:ss). */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A text bar of `width` cells for a fraction 0..1. */
export function bar(fraction: number, width = 20): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
}

/**
 * How far a job is, 0..1: finished 1; processing, the share of its expected run that has
 * passed since it was seen starting (at most 0.99: it is not done until it says so);
 * waiting 0.
 */
export function fraction(job: Job, now: number, processingSince: number | undefined): number {
  if (job.status === 'completed') return 1;
  if (job.status !== 'processing' || processingSince === undefined || !job.estimatedCompletionTime) return 0;
  const total = Date.parse(job.estimatedCompletionTime) - processingSince;
  return total > 0 ? Math.min(0.99, (now - processingSince) / total) : 0.99;
}

/** The parts of a status line: status, queue position, ETA, elapsed. */
export function describe(job: Job, now: number, since: number): string[] {
  const parts = [job.status.padEnd(10)];
  if (job.queuePosition !== undefined)
    parts.push(job.queuePosition === 0 ? 'next in queue' : `queue ${job.queuePosition}`);
  if (job.estimatedCompletionTime) {
    const left = (Date.parse(job.estimatedCompletionTime) - now) / 1000;
    parts.push(left > 0 ? `ETA ${clock(left)}` : 'ETA any moment');
  }
  // A finished job's time stops at its end.
  const end = Math.min(now, Date.parse(job.completedAt ?? '') || now);
  parts.push(`elapsed ${clock(Math.max(0, end - since) / 1000)}`);
  return parts;
}

/** The live line of a terminal: redrawn in place. */
export function liveLine(job: Job, now: number, since: number, processingSince: number | undefined): string {
  const f = fraction(job, now, processingSince);
  return `${describe(job, now, since).join('  ')}  ${bar(f)} ${String(Math.floor(f * 100)).padStart(3)}%`;
}

/** A plain line for a pipe or a log: one per change. */
export function plainLine(job: Job, now: number, since: number): string {
  return `${new Date(now).toISOString()} ${job.jobId} ${describe(job, now, since).join(' ').replace(/ {2,}/g, ' ')}`;
}

/**
 * Shows a job's progress on a stream: on a terminal one line redrawn every second (the
 * ETA and the elapsed time move on their own); elsewhere a plain line per change.
 */
export class Progress {
  private readonly out: NodeJS.WriteStream;
  private readonly tty: boolean;
  /** The job's creation (`watch` of a job submitted a while ago counts from then), else when this began. */
  private since: number;
  private processingSince: number | undefined;
  private job: Job | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(out: NodeJS.WriteStream, o: { now?: () => number } = {}) {
    this.out = out;
    this.tty = Boolean(out.isTTY);
    this.now = o.now ?? Date.now;
    this.since = this.now();
  }

  update(job: Job): void {
    if (job.status === 'processing' && this.processingSince === undefined) this.processingSince = this.now();
    // The service's clock says when the job was made: never later than this one's start, so
    // a service clock ahead of this one's shows no negative time.
    if (!this.job) this.since = Math.min(this.since, Date.parse(job.createdAt) || this.since);
    this.job = job;
    if (!this.tty) {
      this.out.write(`${plainLine(job, this.now(), this.since)}\n`);
      return;
    }
    this.draw();
    this.timer ??= setInterval(() => this.draw(), 1_000);
    this.timer.unref();
  }

  private draw(): void {
    if (!this.job) return;
    const line = liveLine(this.job, this.now(), this.since, this.processingSince);
    this.out.write(`\r\x1b[2K${line.slice(0, Math.max(20, (this.out.columns || 120) - 1))}`);
  }

  /** Stops redrawing and leaves the last line on the screen. */
  done(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty && this.job) {
      this.draw();
      this.out.write('\n');
    }
  }
}
