import { AppError } from '../../errors.ts';
import type { JobRecord } from '../../jobs/record.ts';
import type { EventType, Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';
import type { QueueListener } from './queue.ts';

/** One open event stream: where to write, and what it has sent. */
export interface Stream {
  /** The account that opened it (the cap on open streams is per account). */
  account: string;
  jobId: string;
  model: string;
  /** The id of the last event sent (or the client's Last-Event-ID). */
  lastId?: string;
  /** Whether its caller may still read it (key not revoked, disabled or expired); checked before each write. */
  authorized?: () => boolean;
  write(chunk: string): void;
  end(): void;
}

export interface HubOptions {
  jobs: Pick<Informer<GenerationJob>, 'get'>;
  /**
   * The job cache's changes, each once the queue view has taken it in (QueueView.on), with
   * whether the variant's queue moved: only then do the other streams of the variant need a look.
   */
  changes: { on(listener: QueueListener): void };
  record: (job: GenerationJob) => JobRecord;
  /** Streams an account may hold open at once here; 0: no cap. */
  maxPerAccount?: number;
  /** Interval of the heartbeat comment that keeps proxies from closing idle streams. */
  heartbeatMs?: number;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (timer: unknown) => void;
}

/**
 * The id of an event: the job's resourceVersion, and its queue position while it waits.
 * An event is sent when this changes, and a client resuming with an id equal to the
 * current one already has the current record. A terminal record never changes, while its
 * resource still may (its webhook delivery is recorded, it is archived): its id is its
 * status, the same whatever comes later, so a client holding it gets the 204 it was promised
 * rather than the same record again.
 */
export function eventId(job: GenerationJob, record: JobRecord): string {
  if (isTerminal(record.status)) return record.status;
  const rv = job.metadata.resourceVersion ?? '0';
  return record.queuePosition === undefined ? rv : `${rv}.${record.queuePosition}`;
}

/** An SSE `job` event carrying the record. */
export function formatEvent(id: string, record: JobRecord): string {
  return `id: ${id}\nevent: job\ndata: ${JSON.stringify(record)}\n\n`;
}

/**
 * Fans the job informer out to the open event streams: one listener for all of them, and
 * one heartbeat timer for all of them (running only while a stream is open), so a stream
 * costs a socket and a small object, never a watch or a timer of its own. A change to a
 * job also reaches the streams of the other pending jobs of its variant, whose queue
 * position it may have moved.
 */
export class StreamHub {
  private readonly o: HubOptions;
  private readonly byJob = new Map<string, Set<Stream>>();
  private readonly byModel = new Map<string, Set<Stream>>();
  private readonly perAccount = new Map<string, number>();
  private heartbeat: unknown;
  private count = 0;

  constructor(o: HubOptions) {
    this.o = o;
    o.changes.on((type, job, moved) => this.onJob(type, job, moved));
  }

  /** Open streams (metrics, tests). */
  get size(): number {
    return this.count;
  }

  /**
   * Sends the job's current record unless the stream already has it, then keeps the stream
   * open until the job finishes. Answers false when the stream was ended at once.
   * @throws AppError RATE_LIMITED, before anything is written, when the account already
   *   holds the most streams it may (each holds a socket of this process until its job ends).
   */
  open(stream: Stream, job: GenerationJob): boolean {
    const cap = this.o.maxPerAccount ?? 0;
    const held = this.perAccount.get(stream.account) ?? 0;
    if (cap > 0 && held >= cap) {
      throw new AppError(
        'RATE_LIMITED',
        `the account has ${held} event streams open, the most it may have at once; close one, or poll GET /v1/jobs/{jobId}`,
        { retryAfterSeconds: 5 },
      );
    }
    // The cache may hold a newer version than a direct read made a moment ago.
    if (!this.send(stream, this.o.jobs.get(stream.jobId) ?? job)) return false;
    add(this.byJob, stream.jobId, stream);
    add(this.byModel, stream.model, stream);
    this.perAccount.set(stream.account, held + 1);
    this.count++;
    if (this.count === 1) this.startHeartbeat();
    return true;
  }

  /** Forgets a stream (the client went away). Safe to call twice. */
  close(stream: Stream): void {
    if (!remove(this.byJob, stream.jobId, stream)) return;
    remove(this.byModel, stream.model, stream);
    const left = (this.perAccount.get(stream.account) ?? 1) - 1;
    if (left > 0) this.perAccount.set(stream.account, left);
    else this.perAccount.delete(stream.account);
    this.count--;
    if (this.count === 0) this.stopHeartbeat();
  }

  /** Ends every stream (shutdown): clients reconnect to another replica with their Last-Event-ID. */
  closeAll(): void {
    for (const set of [...this.byJob.values()]) {
      for (const s of [...set]) {
        this.close(s);
        s.end();
      }
    }
  }

  /** Writes the record if it changed; ends the stream after a terminal one. False when ended. */
  private send(stream: Stream, job: GenerationJob): boolean {
    const record = this.o.record(job);
    const id = eventId(job, record);
    if (id !== stream.lastId) {
      stream.lastId = id;
      stream.write(formatEvent(id, record));
    }
    if (!isTerminal(record.status)) return true;
    this.close(stream);
    stream.end();
    return false;
  }

  /**
   * Ends the account's streams whose key no longer authenticates: called when one of its
   * keys or the account itself changes (a revoke, a disable, a deletion), so they end then,
   * not at the next heartbeat or change of their job.
   */
  recheck(account: string): void {
    if (!this.perAccount.has(account)) return;
    for (const set of [...this.byJob.values()])
      for (const s of [...set]) if (s.account === account) this.stillAuthorized(s);
  }

  /**
   * Ends the stream (false) when its caller's key no longer authenticates. Not asked when a
   * stream opens: its request was authenticated a moment ago, perhaps by a key the cache
   * does not show yet.
   */
  private stillAuthorized(stream: Stream): boolean {
    if (!stream.authorized || stream.authorized()) return true;
    this.close(stream);
    stream.end();
    return false;
  }

  private onJob(type: EventType, job: GenerationJob, moved: boolean): void {
    const name = job.metadata.name ?? '';
    if (type === 'delete') {
      // Gone from the cluster (expired or archived): its last record was sent already.
      for (const s of [...(this.byJob.get(name) ?? [])]) {
        this.close(s);
        s.end();
      }
    } else {
      for (const s of [...(this.byJob.get(name) ?? [])]) if (this.stillAuthorized(s)) this.send(s, job);
    }
    // Others of the variant may have moved up the queue.
    if (!moved) return;
    for (const s of [...(this.byModel.get(job.spec.model) ?? [])]) {
      if (s.jobId === name) continue;
      const other = this.o.jobs.get(s.jobId);
      if (other && this.stillAuthorized(s)) this.send(s, other);
    }
  }

  private startHeartbeat(): void {
    const every = this.o.setInterval ?? setInterval;
    const timer = every(() => {
      for (const set of [...this.byJob.values()])
        for (const s of [...set]) if (this.stillAuthorized(s)) s.write(': heartbeat\n\n');
    }, this.o.heartbeatMs ?? 15_000);
    (timer as { unref?: () => void }).unref?.();
    this.heartbeat = timer;
  }

  private stopHeartbeat(): void {
    (this.o.clearInterval ?? ((t) => clearInterval(t as NodeJS.Timeout)))(this.heartbeat);
    this.heartbeat = undefined;
  }
}

function add(map: Map<string, Set<Stream>>, key: string, s: Stream): void {
  const set = map.get(key) ?? new Set<Stream>();
  set.add(s);
  map.set(key, set);
}

function remove(map: Map<string, Set<Stream>>, key: string, s: Stream): boolean {
  const set = map.get(key);
  if (!set?.delete(s)) return false;
  if (set.size === 0) map.delete(key);
  return true;
}
