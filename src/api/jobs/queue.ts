import type { Catalog, Variant } from '../../catalog/index.ts';
import { playQueue, RunTimes, remainingSeconds } from '../../jobs/eta.ts';
import { labelValue } from '../../jobs/labels.ts';
import { type JobRecord, jobRecord, phaseOf } from '../../jobs/record.ts';
import type { EventType, Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

const UNFINISHED = 'queue:unfinished-by-model';
/** A variant's queue is played again at most this often while nothing in it changes. */
const SNAPSHOT_MAX_AGE_MS = 2_000;
/** Run time assumed for a variant the catalog no longer lists. */
const UNKNOWN_TYPICAL_SECONDS = 60;

interface Snapshot {
  at: number;
  /** Pending jobs: position and expected completion (ms). */
  waiting: Map<string, { position: number; eta: number }>;
  /** Jobs holding a slot: expected completion (ms). */
  running: Map<string, number>;
  /** When slots free up after every waiting job (s from `at`): where a new job would start. */
  free: number[];
  waitingCount: number;
}

export interface QueueViewOptions {
  jobs: Pick<Informer<GenerationJob>, 'addIndex' | 'byIndex' | 'on'>;
  catalog: () => Catalog;
  runTimes?: RunTimes;
  now?: () => number;
}

/**
 * Queue position and completion estimate of unfinished jobs, from the api's job cache: a
 * variant's queue is played forward once (see playQueue) and reused by every reader until
 * a job of that variant changes, so 1,000 streams of one variant cost one pass, not 1,000.
 * Observed run times come from the same cache, so every api replica learns on its own.
 */
export class QueueView {
  private readonly o: QueueViewOptions;
  readonly runTimes: RunTimes;
  private readonly snapshots = new Map<string, Snapshot>();

  constructor(o: QueueViewOptions) {
    this.o = o;
    this.runTimes = o.runTimes ?? new RunTimes();
    o.jobs.addIndex(UNFINISHED, (j) => (isTerminal(phaseOf(j)) ? [] : [labelValue(j.spec.model)]));
    o.jobs.on((type, job) => this.onJob(type, job));
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private onJob(type: EventType, job: GenerationJob): void {
    this.snapshots.delete(job.spec.model);
    const s = job.status;
    if (type !== 'delete' && s?.phase === 'completed' && s.startedAt && s.completedAt) {
      const end = Date.parse(s.completedAt);
      const variant = this.variant(job.spec.model);
      this.runTimes.observe(
        job.spec.model,
        job.metadata.name ?? '',
        end,
        (end - Date.parse(s.startedAt)) / 1000,
        unitsOf(job, variant),
      );
    }
  }

  private variant(model: string): Variant | undefined {
    try {
      return this.o.catalog().variantsBySlug.get(model);
    } catch {
      return undefined; // the catalog has not loaded: estimates fall back to a default
    }
  }

  private runOf(job: GenerationJob, variant: Variant | undefined): number {
    const typical = variant?.runtime.typicalSeconds ?? UNKNOWN_TYPICAL_SECONDS;
    return this.runTimes.runSeconds(job.spec.model, typical, unitsOf(job, variant));
  }

  /** Expected run seconds of a job of the model with this input (CONCURRENT_JOBS_EXCEEDED's Retry-After). */
  runSeconds(model: string, typicalSeconds: number): number {
    return this.runTimes.runSeconds(model, typicalSeconds);
  }

  private snapshot(model: string): Snapshot {
    const now = this.now();
    const cached = this.snapshots.get(model);
    if (cached && now - cached.at < SNAPSHOT_MAX_AGE_MS) return cached;
    const variant = this.variant(model);
    const running = new Map<string, number>();
    const remaining: number[] = [];
    const waiting: GenerationJob[] = [];
    for (const j of this.o.jobs.byIndex(UNFINISHED, labelValue(model))) {
      if (j.spec.model !== model) continue;
      if (phaseOf(j) === 'processing' || (j.status?.attempts ?? 0) > 0) {
        const started = Date.parse(j.status?.startedAt ?? '');
        const elapsed = Number.isFinite(started) ? (now - started) / 1000 : 0;
        const left = remainingSeconds(this.runOf(j, variant), elapsed);
        running.set(j.metadata.name ?? '', now + left * 1000);
        remaining.push(left);
      } else waiting.push(j);
    }
    waiting.sort(oldestFirst);
    const runs = waiting.map((j) => this.runOf(j, variant));
    const played = playQueue(
      { capacity: variant?.runtime.maxConcurrency ?? 1, runningRemaining: remaining },
      runs,
    );
    const positions = new Map<string, { position: number; eta: number }>();
    waiting.forEach((j, i) => {
      positions.set(j.metadata.name ?? '', { position: i, eta: now + (played.starts[i]! + runs[i]!) * 1000 });
    });
    const snap = { at: now, waiting: positions, running, free: played.free, waitingCount: waiting.length };
    this.snapshots.set(model, snap);
    return snap;
  }

  /** The queue fields of a job: position (pending only) and expected completion (unfinished only). */
  queueFields(job: GenerationJob): Pick<JobRecord, 'queuePosition' | 'estimatedCompletionTime'> {
    const phase = phaseOf(job);
    if (isTerminal(phase)) return {};
    const name = job.metadata.name ?? '';
    const snap = this.snapshot(job.spec.model);
    const running = snap.running.get(name);
    if (running !== undefined) return { estimatedCompletionTime: new Date(running).toISOString() };
    const waiting = snap.waiting.get(name);
    if (waiting) {
      return {
        queuePosition: waiting.position,
        estimatedCompletionTime: new Date(waiting.eta).toISOString(),
      };
    }
    // Not in the cache yet (just submitted): it queues behind every waiting job.
    const run = this.runOf(job, this.variant(job.spec.model));
    const eta = snap.at + ((snap.free[0] ?? 0) + run) * 1000;
    return { queuePosition: snap.waitingCount, estimatedCompletionTime: new Date(eta).toISOString() };
  }

  /** The GET record of a job, with its queue fields. */
  record(job: GenerationJob): JobRecord {
    return { ...jobRecord(job), ...this.queueFields(job) };
  }
}

/** Units of work of a job: the seconds of a per-second priced variant (a video's length), else 1. */
export function unitsOf(job: GenerationJob, variant: Variant | undefined): number {
  const field = variant?.pricing.perSecond?.field;
  if (!field) return 1;
  const n = Number(job.spec.input?.[field]);
  return Number.isFinite(n) && n > 0 ? n : 1;
}

function oldestFirst(a: GenerationJob, b: GenerationJob): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}
