import { type ArchiveStore, ArchiveUnavailableError } from '../../archive/store.ts';
import { assertNever } from '../../errors.ts';
import { eraseMode } from '../../jobs/labels.ts';
import { isConflict } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import { isPodFinished, type Pod } from '../../k8s/pods.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Account, GenerationJob, Upload } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';
import { wantsWebhook } from '../webhook/decide.ts';
import { Batcher } from './batch.ts';
import { type ArchiveStep, decideJobArchive, decideUploadArchive } from './decide.ts';
import type { Retention } from './retention.ts';
import { settled } from './settled.ts';

export interface ArchiverDeps {
  archive: ArchiveStore;
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  uploads: CustomResources<Upload>;
  uploadCache: Informer<Upload>;
  /** Worker Pods, indexed by 'job'. */
  podCache: Informer<Pod>;
  accountCache: Informer<Account>;
  retention: Retention;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  keepFinishedMs: number;
}

/** Queue keys: `job/<name>`, `upload/<name>`, and the one periodic retention pass. */
export const jobKey = (name: string) => `job/${name}`;
export const uploadKey = (name: string) => `upload/${name}`;
export const RETENTION_KEY = 'retention';

/** A job that waits on the cluster comes back with its event; this is the safety net. */
const WAIT_RECHECK_MS = 60_000;
/** While the archive is down, each key tries again this often (the resources stay meanwhile). */
const DOWN_RETRY_MS = 5_000;
/**
 * How long an upsert waits for others to share its INSERT. Jobs stay resources for
 * keepFinished (minutes) after their upsert, so a tenth of a second costs nothing, and at a
 * few dozen jobs finishing a second it makes one statement (one round trip, one parse and
 * plan in PostgreSQL) of three or four jobs. Archive queue workers wait out the linger:
 * {@link ARCHIVE_CONCURRENCY} of them archive up to ten times as many jobs a second.
 */
const UPSERT_LINGER_MS = 100;
/** Archive queue workers; most of them wait on an upsert's linger or round trip, not the CPU. */
export const ARCHIVE_CONCURRENCY = 64;

/**
 * Moves finished jobs and expired uploads from etcd to the archive: upsert the final
 * record, then (after `keepFinishedMs`) delete the resource with a precondition on the very
 * version archived. The upsert always comes first and is idempotent, so a controller killed
 * between the two writes it again on restart and then deletes: nothing lost, nothing twice.
 */
export class Archiver {
  private readonly d: ArchiverDeps;
  /** Key → resourceVersion this process archived. Lost on restart, which only costs an upsert. */
  private readonly archived = new Map<string, string>();
  /**
   * Job key → since when it has been due in the archive ({@link dueSince}), for the archive
   * lag: kept while its cluster work (Pod, settlement) or its upsert is pending.
   */
  private readonly dueSince = new Map<string, number>();
  private readonly jobBatch: Batcher<GenerationJob>;
  private readonly uploadBatch: Batcher<Upload>;
  /** Job key → account, of finished jobs waiting for their settlement (an Account event brings them back). */
  private readonly awaitingSettlement = new Map<string, string>();
  /**
   * Jobs this process is deleting or deleted after archiving them, until the job reconciler
   * sees them go ({@link deletedArchived}): it keeps their files then without asking the archive.
   */
  private readonly deleting = new Set<string>();
  private down = false;

  constructor(deps: ArchiverDeps) {
    this.d = deps;
    const linger = { lingerMs: UPSERT_LINGER_MS };
    this.jobBatch = new Batcher((jobs) => deps.archive.upsertJobs(jobs), linger);
    this.uploadBatch = new Batcher((uploads) => deps.archive.upsertUploads(uploads), linger);
  }

  /**
   * Whether this process deleted the job after archiving it; each answer is given once (the
   * job reconciler asks when it sees the job gone). False says nothing: a job deleted by
   * another leader, or by hand, is looked up in the archive.
   */
  deletedArchived(name: string): boolean {
    return this.deleting.delete(name);
  }

  /** Seconds since the oldest job due in the archive and not archived yet became due, 0 when none. */
  lagSeconds(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const t of this.dueSince.values()) oldest = Math.min(oldest, t);
    return Number.isFinite(oldest) ? Math.max(0, (this.d.now() - oldest) / 1000) : 0;
  }

  /**
   * Forgets the lag kept while leading: another replica archives now, and an entry for a job
   * it archives and deletes would never be cleared here (a lag that only grows).
   */
  stopLeading(): void {
    this.dueSince.clear();
    this.deleting.clear();
  }

  /** Keys of the account's finished jobs that wait for their settlement. */
  waitingOn(account: string): string[] {
    return [...this.awaitingSettlement].filter(([, a]) => a === account).map(([key]) => key);
  }

  async reconcile(key: string): Promise<HandlerResult | undefined> {
    try {
      if (key === RETENTION_KEY) {
        const result = await this.d.retention.pass();
        this.up();
        return result;
      }
      return key.startsWith('upload/')
        ? await this.reconcileUpload(key, key.slice('upload/'.length))
        : await this.reconcileJob(key, key.slice('job/'.length));
    } catch (err) {
      if (!(err instanceof ArchiveUnavailableError)) throw err;
      this.d.metrics.archiveErrors.inc({ op: key === RETENTION_KEY ? 'retention' : 'upsert' });
      if (!this.down)
        this.d.log.warn(
          { err: err.message },
          'archive unavailable; finished jobs stay resources until it returns',
        );
      this.down = true;
      return { requeueAfterMs: DOWN_RETRY_MS + Math.floor(Math.random() * DOWN_RETRY_MS) };
    }
  }

  /** Called after the archive answered (not after a key that never reached it). */
  private up(): void {
    if (!this.down) return;
    this.down = false;
    this.d.log.info('archive available again');
  }

  private async reconcileJob(key: string, name: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    const job = d.jobCache.get(name);
    if (!job || erasing(d.accountCache.get(job.spec.account))) return this.forget(key);
    const rv = job.metadata.resourceVersion ?? '';
    const step = decideJobArchive({
      job,
      podsStopped: d.podCache.byIndex('job', name).every(isPodFinished),
      settled: settled(job, d.accountCache.get(job.spec.account)),
      archived: this.archived.get(key) === rv,
      now: d.now(),
      keepFinishedMs: d.keepFinishedMs,
    });
    if (step.kind === 'wait' && step.for === 'settlement') this.awaitingSettlement.set(key, job.spec.account);
    else this.awaitingSettlement.delete(key);
    // A job waiting for its Pod to stop or its settlement is lagging too (a ledger stuck on
    // it shows); one whose webhook is still being delivered is not (that is its work).
    if (step.kind === 'archive' || (step.kind === 'wait' && step.for !== 'webhook')) {
      if (!this.dueSince.has(key)) this.dueSince.set(key, dueSince(job) ?? d.now());
    } else this.dueSince.delete(key);
    return this.act(key, step, {
      upsert: () => this.jobBatch.add(forHistory(job)),
      delete: async () => {
        // Marked before the delete: its watch event may reach the job reconciler before the answer.
        this.deleting.add(name);
        try {
          return await d.jobs.delete(name, { uid: job.metadata.uid, resourceVersion: rv });
        } catch (err) {
          this.deleting.delete(name);
          throw err;
        }
      },
      rv,
      kind: 'job',
      name,
      again: () => this.reconcileJob(key, name),
    });
  }

  private async reconcileUpload(key: string, name: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    const upload = d.uploadCache.get(name);
    if (!upload || erasing(d.accountCache.get(upload.spec.account))) return this.forget(key);
    const rv = upload.metadata.resourceVersion ?? '';
    const step = decideUploadArchive({
      upload,
      archived: this.archived.get(key) === rv,
      now: d.now(),
      keepFinishedMs: d.keepFinishedMs,
    });
    return this.act(key, step, {
      upsert: () => this.uploadBatch.add(upload),
      delete: () => d.uploads.delete(name, { uid: upload.metadata.uid, resourceVersion: rv }),
      rv,
      kind: 'upload',
      name,
      again: () => this.reconcileUpload(key, name),
    });
  }

  private async act(
    key: string,
    step: ArchiveStep,
    o: {
      upsert: () => Promise<void>;
      delete: () => Promise<boolean>;
      rv: string;
      kind: 'job' | 'upload';
      name: string;
      again: () => Promise<HandlerResult | undefined>;
    },
  ): Promise<HandlerResult | undefined> {
    switch (step.kind) {
      case 'none':
        return this.forget(key);
      case 'wait':
        return { requeueAfterMs: WAIT_RECHECK_MS };
      case 'archive':
        await o.upsert();
        this.up();
        this.archived.set(key, o.rv);
        this.dueSince.delete(key);
        this.d.metrics.archived.inc({ kind: o.kind });
        return o.again();
      case 'keep':
        return { requeueAfterMs: Math.max(1, step.ms) };
      case 'delete': {
        let deleted: boolean;
        try {
          deleted = await o.delete();
        } catch (err) {
          // It changed since it was archived: the new version is archived before the delete.
          if (isConflict(err)) return { requeueAfterMs: 50 };
          throw err;
        }
        this.forget(key);
        // The end of its life in the cluster, as `job completed` is of its run: an operator
        // looking for a job `kubectl get gj` no longer shows finds where it went.
        // (Not when it was gone already: whoever deleted it is the one to say.)
        if (deleted)
          this.d.log.info(
            o.kind === 'job' ? { jobId: o.name } : { upload: o.name },
            `${o.kind} archived and deleted from the cluster`,
          );
        return undefined;
      }
      default:
        return assertNever(step);
    }
  }

  private forget(key: string): undefined {
    this.archived.delete(key);
    this.awaitingSettlement.delete(key);
    this.dueSince.delete(key);
    return undefined;
  }
}

/**
 * Since when a finished job has been due in the archive, from what its resource records, so
 * the lag survives a restart or a change of leader: its end, or its webhook's delivery when
 * it had one. A webhook given up records no time; undefined then (the caller uses the time
 * it first saw the job due).
 */
export function dueSince(job: GenerationJob): number | undefined {
  const at = (s: string | undefined) => (s ? Date.parse(s) || undefined : undefined);
  const ended = at(job.status?.completedAt);
  if (!wantsWebhook(job)) return ended;
  return job.status?.webhook?.state === 'delivered' ? at(job.status.webhook.deliveredAt) : undefined;
}

/** An account being erased: its eraser deletes its resources, and with them what the history would keep. */
function erasing(account: Account | undefined): boolean {
  return account !== undefined && eraseMode(account) !== undefined;
}

/**
 * A job as the history keeps it: its webhook address cut to its origin. The path and query
 * often carry a receiver's token (and a URL may name a user and password); delivery has
 * ended once a job is archived, so the history has no use for them, and keeps it 30 days.
 */
export function forHistory(job: GenerationJob): GenerationJob {
  const url = job.spec.webhookUrl;
  if (url === undefined) return job;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = '';
  }
  return { ...job, spec: { ...job.spec, webhookUrl: origin } };
}
