import type { CompletedRun } from '../../archive/store.ts';
import type { Catalog, Variant } from '../../catalog/index.ts';
import { podRefused } from '../../jobs/conditions.ts';
import { RunTimes, remainingSeconds, Slots, type Work } from '../../jobs/eta.ts';
import { FairQueue, type QueuedFor, queuedOf } from '../../jobs/order.ts';
import { type JobRecord, jobRecord, phaseOf } from '../../jobs/record.ts';
import type { EventType, Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

/** A variant's estimates are played again at most this long after the last time, if nothing moved. */
const SNAPSHOT_MAX_AGE_MS = 2_000;
/**
 * ...and no sooner than this: a running job past its expected end moves every estimate of its
 * variant (its own is pushed a little later each time), so the play is redone when the
 * first running job is due, but not on every read while jobs overrun.
 */
const SNAPSHOT_MIN_AGE_MS = 200;
/** Run time assumed for a variant the catalog no longer lists. */
const UNKNOWN_TYPICAL_SECONDS = 60;

/** A pending job in its variant's queue, ordered as the controller admits (accounts take turns). */
interface Waiting extends QueuedFor {
  work: Work;
  /** Its worker Pod was refused (see podRefused): it keeps its place, takes no slot in the play. */
  blocked: boolean;
}

/** Where a job stands in the view: its variant, and whether it waits or holds a slot. */
type Place =
  | { model: string; kind: 'waiting'; entry: Waiting }
  | { model: string; kind: 'running'; started: number; work: Work; blocked: boolean };

/** The completion estimates of one variant's jobs, played forward from when they were made. */
interface Snapshot {
  /** When the play is stale: the first running job's expected end, within the ages above. */
  until: number;
  /** Expected completion (ms) of each unfinished job. */
  eta: Map<string, number>;
  /** The slots after every waiting job: where a job queued next starts. */
  slots: Slots;
  /**
   * The variant is paused (runtime maxConcurrency 0): its waiting jobs start when an operator
   * says so, which no estimate can know, so they have none (running ones keep theirs).
   */
  paused: boolean;
}

/** One variant's queue: the waiting jobs in admission order and the ones holding a slot. */
class VariantQueue {
  readonly waiting = new FairQueue<Waiting>();
  readonly running = new Map<string, { started: number; work: Work }>();
  snapshot: Snapshot | undefined;
}

/**
 * Called after each change of the job cache has been applied to the view. `moved`: whether
 * the queue positions or estimates of the variant's other jobs may have changed.
 */
export type QueueListener = (type: EventType, job: GenerationJob, moved: boolean) => void;

export interface QueueViewOptions {
  jobs: Pick<Informer<GenerationJob>, 'on'>;
  catalog: () => Catalog;
  runTimes?: RunTimes;
  now?: () => number;
}

/** The longest Retry-After of CONCURRENT_JOBS_EXCEEDED (see QueueView.firstFinishIn). */
export const MAX_SLOT_WAIT_SECONDS = 60;

/**
 * Queue position and completion estimate of unfinished jobs, kept from the api's job cache
 * as it changes. Each variant's waiting jobs are held in admission order (the controller's:
 * accounts take turns, each one's jobs by submit time, then name; see FairQueue), so a
 * position is a binary search per account waiting, exact at any moment. The
 * estimates are played forward once per queue move (a job starts, ends or leaves) and
 * reused by every reader; a new job takes the next free slot of that play, so a submit
 * costs O(log n) however long the queue is. Observed run times come from the same cache,
 * so every api replica learns on its own.
 */
export class QueueView {
  private readonly o: QueueViewOptions;
  readonly runTimes: RunTimes;
  private readonly queues = new Map<string, VariantQueue>();
  private readonly places = new Map<string, Place>();
  private readonly listeners: QueueListener[] = [];

  constructor(o: QueueViewOptions) {
    this.o = o;
    this.runTimes = o.runTimes ?? new RunTimes();
    o.jobs.on((type, job) => this.onJob(type, job));
  }

  /** Hears every change of the job cache, after the view has taken it in. */
  on(listener: QueueListener): void {
    this.listeners.push(listener);
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private queue(model: string): VariantQueue {
    let q = this.queues.get(model);
    if (!q) {
      q = new VariantQueue();
      this.queues.set(model, q);
    }
    return q;
  }

  private onJob(type: EventType, job: GenerationJob): void {
    const model = job.spec.model;
    const name = job.metadata.name ?? '';
    const q = this.queue(model);
    let moved = this.learn(type, job);
    const before = this.places.get(name);
    const after = type === 'delete' ? undefined : this.placeOf(job);
    if (!samePlace(before, after)) {
      if (before) this.leave(this.queue(before.model), job.spec.account, name, before);
      if (after?.kind === 'waiting') {
        moved = this.enter(q, model, after.entry) || moved;
        this.places.set(name, after);
      } else if (after?.kind === 'running') {
        q.running.set(name, { started: after.started, work: after.work });
        q.waiting.hold(job.spec.account, name);
        this.places.set(name, after);
        moved = true;
      } else {
        this.places.delete(name);
      }
      if (before) moved = true;
    }
    if (moved) q.snapshot = undefined;
    if (q.waiting.length === 0 && q.running.size === 0) this.queues.delete(model);
    for (const l of this.listeners) l(type, job, moved);
  }

  /**
   * Takes in runs the cache no longer holds (the archive's): a restarted api estimates from
   * the runs its variants last made, not from the catalog's typical time. Returns how many
   * were new to the history.
   */
  learnRuns(runs: Iterable<CompletedRun>): number {
    let learned = 0;
    for (const run of runs) {
      if (!this.learnRun(run)) continue;
      learned++;
      const q = this.queues.get(run.model);
      if (q) q.snapshot = undefined;
    }
    return learned;
  }

  /** Takes a completion's run time into the variant's history; true when estimates may change. */
  private learn(type: EventType, job: GenerationJob): boolean {
    const s = job.status;
    if (type === 'delete' || s?.phase !== 'completed' || !s.startedAt || !s.completedAt) return false;
    return this.learnRun({
      id: job.metadata.name ?? '',
      model: job.spec.model,
      input: job.spec.input ?? {},
      startedAt: s.startedAt,
      completedAt: s.completedAt,
    });
  }

  private learnRun(run: CompletedRun): boolean {
    const end = Date.parse(run.completedAt);
    return this.runTimes.observe(
      run.model,
      run.id,
      end,
      (end - Date.parse(run.startedAt)) / 1000,
      workOfInput(run.input, this.variant(run.model)),
    );
  }

  private placeOf(job: GenerationJob): Place | undefined {
    const phase = phaseOf(job);
    if (isTerminal(phase)) return undefined;
    const model = job.spec.model;
    const work = workOf(job, this.variant(model));
    const blocked = podRefused(job);
    if (phase === 'processing' || (job.status?.attempts ?? 0) > 0) {
      return { model, kind: 'running', started: Date.parse(job.status?.startedAt ?? ''), work, blocked };
    }
    return { model, kind: 'waiting', entry: { ...queuedOf(job), account: job.spec.account, work, blocked } };
  }

  /**
   * Puts a new waiting job in its place; its position is exact from now on. Its estimate
   * takes the next free slot of the current play, as if it were the last one, when only jobs
   * of its own turn stand behind it (other accounts' jobs submitted in the same round): what
   * that changes for them is small, and is played out at the next move. Replaying a long
   * queue on every submit is what this avoids. A job that overtook another account's backlog
   * (its account's first in a queue one tenant filled) replays the play at the next read, so
   * its own estimate says it starts soon. Others are not told of a move (their streams show
   * it with the next one).
   */
  private enter(q: VariantQueue, model: string, entry: Waiting): boolean {
    q.waiting.put(entry);
    if (q.waiting.overtakes(entry)) q.snapshot = undefined;
    else if (q.snapshot && !q.snapshot.paused && !entry.blocked) {
      const run = this.runSecondsOf(model, this.variant(model), entry.work) * 1000;
      q.snapshot.eta.set(entry.name, q.snapshot.slots.take(run, this.now()) + run);
    }
    return false;
  }

  private leave(q: VariantQueue, account: string, name: string, place: Place): void {
    if (place.kind === 'running') {
      q.running.delete(name);
      q.waiting.release(account, name);
      return;
    }
    q.waiting.remove(place.entry);
  }

  private variant(model: string): Variant | undefined {
    try {
      return this.o.catalog().variantsBySlug.get(model);
    } catch {
      return undefined; // the catalog has not loaded: estimates fall back to a default
    }
  }

  /**
   * Whether the variant's waiting jobs can have no estimate: it is paused (maxConcurrency 0)
   * or gone from a loaded catalog (they fail MODEL_UNAVAILABLE when its removal grace ends,
   * unless it comes back).
   */
  private stopped(variant: Variant | undefined): boolean {
    if (variant) return variant.runtime.maxConcurrency === 0;
    try {
      this.o.catalog();
      return true;
    } catch {
      return false;
    }
  }

  private runSecondsOf(model: string, variant: Variant | undefined, work: Work): number {
    const typical = variant?.runtime.typicalSeconds ?? UNKNOWN_TYPICAL_SECONDS;
    return this.runTimes.runSeconds(model, typical, work);
  }

  /** Expected run seconds of a job of the model (CONCURRENT_JOBS_EXCEEDED's Retry-After). */
  runSeconds(model: string, typicalSeconds: number): number {
    return this.runTimes.runSeconds(model, typicalSeconds);
  }

  /** The variant's estimates, played again when something moved or time has passed. */
  private snapshot(model: string, q: VariantQueue): Snapshot {
    const now = this.now();
    if (q.snapshot && now < q.snapshot.until) return q.snapshot;
    const variant = this.variant(model);
    const run = (work: Work) => this.runSecondsOf(model, variant, work) * 1000;
    const eta = new Map<string, number>();
    const ends: number[] = [];
    for (const [name, r] of q.running) {
      const expected = run(r.work) / 1000;
      const elapsed = Number.isFinite(r.started) ? (now - r.started) / 1000 : 0;
      const end = now + remainingSeconds(expected, elapsed) * 1000;
      eta.set(name, end);
      ends.push(end);
    }
    const slots = new Slots(variant?.runtime.maxConcurrency ?? 1, ends);
    const paused = this.stopped(variant);
    // Not made for a paused variant: its queue changes with every submit and nothing starts,
    // so its positions stay a search per account rather than an O(n) order per submit.
    for (const w of paused ? [] : q.waiting.order()) {
      if (w.blocked) continue;
      const ms = run(w.work);
      eta.set(w.name, slots.take(ms, now) + ms);
    }
    const due = ends.reduce((first, end) => Math.min(first, end), Number.POSITIVE_INFINITY);
    const until = Math.min(now + SNAPSHOT_MAX_AGE_MS, Math.max(now + SNAPSHOT_MIN_AGE_MS, due));
    q.snapshot = { until, eta, slots, paused };
    return q.snapshot;
  }

  /** The queue fields of a job: position (pending only) and expected completion (unfinished only). */
  queueFields(job: GenerationJob): Pick<JobRecord, 'queuePosition' | 'estimatedCompletionTime'> {
    if (isTerminal(phaseOf(job))) return {};
    const model = job.spec.model;
    const name = job.metadata.name ?? '';
    const q = this.queue(model);
    const snap = this.snapshot(model, q);
    const place = this.places.get(name);
    const eta = snap.eta.get(name);
    // A job whose worker Pod the cluster refuses has no estimate: when it makes room is not known.
    if (place?.kind === 'running' && place.blocked) return {};
    if (place?.kind === 'running' && eta !== undefined)
      return { estimatedCompletionTime: new Date(eta).toISOString() };
    if (place?.kind === 'waiting' && (eta !== undefined || snap.paused || place.entry.blocked)) {
      return {
        queuePosition: q.waiting.position(place.entry),
        ...(eta !== undefined ? { estimatedCompletionTime: new Date(eta).toISOString() } : {}),
      };
    }
    // Not in the cache yet (just submitted): its place by its account's turn, and the next
    // free slot of the play, as if it were the last one, unless it overtakes another
    // account's backlog: then the play is made with it in its place (see enter()).
    const variant = this.variant(model);
    const entry: Waiting = {
      ...queuedOf(job),
      account: job.spec.account,
      work: workOf(job, variant),
      blocked: podRefused(job),
    };
    const queuePosition = q.waiting.position(entry);
    if (snap.paused || entry.blocked) return { queuePosition };
    if (q.waiting.overtakes(entry)) {
      q.waiting.put(entry);
      q.snapshot = undefined;
      const at = this.snapshot(model, q).eta.get(name);
      q.waiting.remove(entry);
      q.snapshot = undefined;
      if (at !== undefined) return { queuePosition, estimatedCompletionTime: new Date(at).toISOString() };
    }
    const run = this.runSecondsOf(model, variant, entry.work) * 1000;
    return {
      queuePosition,
      estimatedCompletionTime: new Date(snap.slots.next(this.now()) + run).toISOString(),
    };
  }

  /**
   * Seconds until the first of `jobs` (an account's) should finish and free one of its
   * concurrency slots, from the same estimates the records show: CONCURRENT_JOBS_EXCEEDED's
   * Retry-After. At least 1 (an overdue job may end any moment), at most
   * {@link MAX_SLOT_WAIT_SECONDS} (a cold estimate may be long: a client had better look
   * again), and that too when none has an estimate (their variants paused or removed);
   * undefined when none is unfinished (the cache has not seen them yet).
   */
  firstFinishIn(jobs: Iterable<GenerationJob>): number | undefined {
    let first: number | undefined;
    let unfinished = false;
    for (const job of jobs) {
      if (isTerminal(job.status?.phase)) continue;
      unfinished = true;
      const at = Date.parse(this.queueFields(job).estimatedCompletionTime ?? '');
      if (at < (first ?? Number.POSITIVE_INFINITY)) first = at;
    }
    if (first === undefined) return unfinished ? MAX_SLOT_WAIT_SECONDS : undefined;
    return Math.min(MAX_SLOT_WAIT_SECONDS, Math.max(1, Math.ceil((first - this.now()) / 1000)));
  }

  /** The GET record of a job, with its queue fields. */
  record(job: GenerationJob): JobRecord {
    return { ...jobRecord(job), ...this.queueFields(job) };
  }
}

/**
 * The work of a job: its units (the per-second field's value, 1 without one) and its traits,
 * one `field=value` for each closed-set field of the variant's input (an `enum` or a boolean;
 * the schema's default when the input leaves it out): what may make a run longer or shorter.
 */
export function workOf(job: GenerationJob, variant: Variant | undefined): Work {
  return workOfInput(job.spec.input ?? {}, variant);
}

function workOfInput(input: Record<string, unknown>, variant: Variant | undefined): Work {
  const field = variant?.pricing.perSecond?.field;
  const n = field ? Number(input[field]) : 1;
  const units = Number.isFinite(n) && n > 0 ? n : 1;
  if (!variant) return { units };
  const traits: string[] = [];
  for (const [name, fallback] of closedFields(variant)) {
    if (name === field) continue;
    const value = input[name] ?? fallback;
    if (value !== undefined) traits.push(`${name}=${String(value)}`);
  }
  return { units, traits };
}

const closedFieldsOf = new WeakMap<Variant, ReadonlyArray<readonly [string, unknown]>>();

/** The variant's closed-set input fields with their defaults, read once per catalog load. */
function closedFields(variant: Variant): ReadonlyArray<readonly [string, unknown]> {
  let fields = closedFieldsOf.get(variant);
  if (!fields) {
    fields = Object.entries(variant.inputSchema.properties)
      .filter(([, p]) => p.enum !== undefined || p.type === 'boolean')
      .map(([name, p]) => [name, (p as { default?: unknown }).default] as const);
    closedFieldsOf.set(variant, fields);
  }
  return fields;
}

function samePlace(a: Place | undefined, b: Place | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.kind === 'waiting' && b.kind === 'waiting')
    return a.entry.created === b.entry.created && a.entry.blocked === b.entry.blocked;
  if (a.kind === 'running' && b.kind === 'running')
    return (
      a.blocked === b.blocked &&
      (a.started === b.started || (Number.isNaN(a.started) && Number.isNaN(b.started)))
    );
  return false;
}
