import { jobPrefix } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import type { Catalog, Runtime } from '../../catalog/index.ts';
import { POD_REFUSED } from '../../jobs/conditions.ts';
import type { Kube } from '../../k8s/client.ts';
import { apiMessage, isAlreadyExists, isConflict, statusCode } from '../../k8s/errors.ts';
import { type EventRecorder, jobSubject } from '../../k8s/events.ts';
import type { Informer } from '../../k8s/informer.ts';
import { createPod, deletePod, type Pod, timeOf } from '../../k8s/pods.ts';
import { type CustomResources, later } from '../../k8s/resources.ts';
import { type Account, type GenerationJob, type GenerationJobStatus, isTerminal } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { Money } from '../../ledger/money.ts';
import type { Holding } from '../../ledger/ops.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';
import { closeBatchMs } from '../account/close-lease.ts';
import { mergePatch, setCondition } from '../conditions.ts';
import type { Admission } from './admission.ts';
import type { ModelCredentials } from './credentials.ts';
import { type Action, type DecideSettings, decide, type PodView, podName } from './decide.ts';
import { buildWorkerPod, JOB_LABEL, type PodSettings } from './pod.ts';

export interface JobReconcilerDeps {
  kube: Kube;
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  podCache: Informer<Pod>;
  accountCache: Informer<Account>;
  ledger: Ledger;
  /** Where each job's money is held (reservation or credit lease). */
  money: Money;
  /** How long after its term a credit lease is closed (a job it pays for is kept until then). */
  leaseGraceMs: number;
  catalog: () => Catalog | undefined;
  /**
   * For a model missing from the catalog: how long its queued jobs wait before another
   * look, or undefined when they may fail (catalog/watcher.ts pauseFor).
   */
  catalogPause?: (slug: string) => number | undefined;
  /**
   * GENJOBS_CATALOG_REMOVAL_GRACE: with the ModelRemoved condition's time, the grace of a
   * model removed before this process started (it never saw the model, so catalogPause cannot).
   */
  catalogRemovalGraceMs?: number;
  admission: Admission;
  blob: BlobStore;
  /**
   * Whether the job history holds a job (archive on): a job gone from the cluster keeps its
   * files only then (retention deletes them with its row). Absent: no history, so a job
   * that is gone takes its files with it.
   */
  archived?: (jobId: string) => Promise<boolean>;
  /** The job history's resource of a job, if it holds one (archive on): see {@link JobReconciler.adoptArchivedEnd}. */
  archivedJob?: (jobId: string) => Promise<GenerationJob | undefined>;
  events: EventRecorder;
  metrics: Metrics;
  log: Logger;
  settings: DecideSettings;
  pod: Omit<PodSettings, 'blobGrant'>;
  /** Refuses a runtime whose authSecretRef names a Secret not labelled as model credentials. */
  credentials?: ModelCredentials;
  now?: () => number;
  /** Asks for a job to be reconciled again (a settlement that failed). */
  enqueue: (jobId: string) => void;
}

/** How long a Pod this process deleted may still show in the cache before it is deleted again. */
const DELETE_PATIENCE_MS = 30_000;

/** How long after its end a finished job is looked at again for a lease its cache does not show. */
const LEASE_LAG_MS = 30_000;

/**
 * Reconciles one GenerationJob: reads the job, its Pod and its reservation from the
 * caches, lets {@link decide} choose, then acts. A new Pod is created before the status
 * that names it is written (its name is deterministic, so a retry after a crash finds it
 * rather than starting a second one); everything else happens after the status write,
 * whose compare-and-swap makes a racing cancel and this controller agree on one outcome.
 */
export class JobReconciler {
  private readonly d: JobReconcilerDeps;
  /**
   * The status writes of this process until the cache shows them: a Pod event that comes
   * before the job's own event must not be decided on the older job (a sure conflict).
   */
  private readonly written = new Map<string, GenerationJob>();
  /** Pods this process created, until the Pod cache shows them: podName → when. */
  private readonly createdPods = new Map<string, number>();
  /**
   * Pods this process deleted, until the Pod cache stops showing them: podName → when, and
   * with what grace period. A finished job is woken again before its Pod's deletion reaches
   * the cache (by its own status write, the Pod's last status): each such wake-up deleted
   * the Pod again, for a 404 (1.2 refused DELETEs per job in the end-to-end bench, each a
   * full apiserver request).
   */
  private readonly deletedPods = new Map<string, { at: number; grace: number | undefined }>();
  /** New jobs seen before their money (jobId → account): the Account's next event brings them back. */
  readonly awaitingReservation = new Map<string, string>();
  /**
   * The Pods of unfinished jobs that the Pod cache has shown (jobId → Pod names), from the
   * cache's own events, so a Pod created and deleted between two reconciles counts too: a
   * missing Pod that existed was lost, not one still to be created.
   */
  private readonly seenPods = new Map<string, Set<string>>();
  /** Unfinished jobs made before this process started, looked for in the job history once each. */
  private readonly historyAsked = new Set<string>();
  /** The reason last said of each job whose worker Pod the apiserver refused ({@link sayRefused}). */
  private readonly refusedSaid = new Map<string, string>();
  private historyDownSaid = false;
  private readonly startedAt: number;

  constructor(deps: JobReconcilerDeps) {
    this.d = deps;
    this.startedAt = deps.now?.() ?? Date.now();
    deps.podCache.on((type, pod) => {
      const jobId = pod.metadata?.labels?.[JOB_LABEL];
      const name = pod.metadata?.name;
      if (!jobId || !name) return;
      if (type === 'delete') this.deletedPods.delete(name);
      const job = deps.jobCache.get(jobId);
      if (!job || isTerminal(job.status?.phase)) return;
      const names = this.seenPods.get(jobId) ?? new Set<string>();
      names.add(name);
      this.seenPods.set(jobId, names);
    });
  }

  /** Jobs whose worker Pod the apiserver refused, waiting to try again. */
  podRefused(): Iterable<string> {
    return this.refusedSaid.keys();
  }

  async reconcile(jobId: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    const cached = d.jobCache.get(jobId);
    const job = cached && later(cached, this.written.get(jobId));
    if (job === cached) this.written.delete(jobId);
    if (!job || isTerminal(job.status?.phase)) {
      this.seenPods.delete(jobId);
      this.historyAsked.delete(jobId);
      this.refusedSaid.delete(jobId);
    }
    if (!job) {
      this.awaitingReservation.delete(jobId);
      // Owned Pods of a deleted job: nothing else (no garbage collector in every cluster) removes them.
      for (const pod of d.podCache.byIndex('job', jobId)) await this.deletePod(pod.metadata?.name ?? '', 0);
      // Its files, unless the archive keeps its record (the archiver deletes a job once its
      // row is written): a job deleted by hand, or with the archive off, leaves none behind.
      if (!(await d.archived?.(jobId))) await d.blob.deletePrefix(jobPrefix(jobId));
      return undefined;
    }
    const adopted = await this.adoptArchivedEnd(jobId, job);
    if (adopted) return adopted;
    const now = d.now?.() ?? Date.now();
    const attempts = job.status?.attempts ?? 0;
    const name = podName(jobId, Math.max(1, attempts));
    const pod = d.podCache.get(name);
    if (pod && !isTerminal(job.status?.phase))
      this.seenPods.set(jobId, (this.seenPods.get(jobId) ?? new Set<string>()).add(name));
    // A Pod this process just created and the cache does not show yet: its event brings the
    // job back (deciding now would take it for missing and create it again).
    const created = this.createdPods.get(name);
    if (pod || (created !== undefined && now - created > 30_000)) this.createdPods.delete(name);
    else if (created !== undefined && !isTerminal(job.status?.phase)) return { requeueAfterMs: 1_000 };
    const variant = d.catalog()?.variantsBySlug.get(job.spec.model);
    const runtime = variant?.runtime;
    const phase = job.status?.phase ?? 'pending';
    const waiting = phase === 'pending' && attempts === 0 && !pod;
    // Its first Pod was just created and is not in the cache yet: no status names it until
    // then, and the Pod's event brings the job back (the requeue is a safety net).
    if (waiting && d.admission.starting(job)) return { requeueAfterMs: 1_000 };
    // A catalog not loaded yet, or a model removed a moment ago, pauses what is queued for
    // it instead of failing it.
    const paused =
      waiting && !runtime ? (d.catalogPause?.(job.spec.model) ?? this.removalGraceLeft(job, now)) : undefined;
    if (paused !== undefined) {
      if (d.catalog()) await this.sayRemoved(jobId, job, now, now + paused);
      return { requeueAfterMs: paused };
    }
    const held = d.money.holding(job);
    const reserved = held !== 'none';
    if (waiting && !reserved) this.awaitingReservation.set(jobId, job.spec.account);
    else this.awaitingReservation.delete(jobId);
    const decision = decide({
      job,
      pod: pod ? podView(pod) : undefined,
      runtime,
      admitted:
        waiting && reserved && runtime !== undefined && d.admission.admits(job, runtime.maxConcurrency),
      reserved,
      podSeen: this.seenPods.get(jobId)?.has(name) ?? false,
      outputsUnder: `${d.pod.blobPublicUrl.replace(/\/+$/, '')}/${jobPrefix(jobId)}`,
      now,
      settings: d.settings,
    });

    const create = decision.actions.find((a) => a.kind === 'createPod');
    if (create && runtime) {
      // Counted as starting before its Pod is made: other jobs of the model are decided
      // while the create is in flight, and must not take the same slot.
      d.admission.markStarted(job);
      // A job whose Pod may not be made stays pending.
      await this.checkCredentials(job, runtime);
      await this.startPod(job, create.attempt, runtime, now);
    }
    if (decision.status) {
      if (!(await this.writeStatus(jobId, job, decision.status))) return { requeueAfterMs: 50 };
      this.observeTransition(job, decision.status, now);
    }
    const keep = this.keepForLease(job, held, now);
    // A finished job naming a lease this cache does not show yet (the api writes the lease,
    // then the job; the two watches deliver each in its own order) is settled once it shows:
    // looked at again shortly, while a cache could still lag (a closed lease settled it).
    const leaseUnseen =
      held === 'none' &&
      isTerminal(phase) &&
      job.spec.lease !== undefined &&
      d.money.leaseOf(job) === undefined &&
      now - (Date.parse(job.status?.completedAt ?? '') || now) < LEASE_LAG_MS;
    for (const action of decision.actions) {
      if (action.kind === 'deleteJob' && (keep !== undefined || leaseUnseen))
        return { requeueAfterMs: keep ?? 1_000 };
      await this.act(job, action, held);
    }
    const after = leaseUnseen ? Math.min(1_000, decision.requeueAfterMs ?? 1_000) : decision.requeueAfterMs;
    return after !== undefined ? { requeueAfterMs: Math.max(1, after) } : undefined;
  }

  /**
   * Writes the job's new status: a merge patch of what changed, with the resourceVersion read
   * as its precondition (a compare-and-swap, as a PUT of the whole status would be; the
   * end-to-end bench measured 0.3 ms less controller CPU per job, the apiserver's the same).
   * False when someone else (a cancel, the other replica before a hand-over) wrote first:
   * the informer brings the new state and the key comes back.
   */
  private async writeStatus(
    jobId: string,
    job: GenerationJob,
    status: GenerationJobStatus,
  ): Promise<boolean> {
    const patch = {
      metadata: { resourceVersion: job.metadata.resourceVersion },
      status: mergePatch(job.status ?? {}, status),
    };
    try {
      this.written.set(jobId, await this.d.jobs.patchStatus(jobId, patch));
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /**
   * An unfinished job that the job history holds as finished, with the same uid, came back
   * with a restore of the cluster from a backup older than the history's: it ended (its
   * client saw it cancelled and refunded, or got its outputs and its notification), and the
   * ledger that moved its money was lost with the newer state. It takes that end instead of
   * running again: the status as archived, so its money is settled once in this ledger,
   * its Pod (if the backup had one) goes, and its notification is not sent again. Asked
   * once per job, and only of jobs made before this process started (a newer one cannot be
   * in the history); an archive that does not answer lets the job go on as it would.
   */
  private async adoptArchivedEnd(jobId: string, job: GenerationJob): Promise<HandlerResult | undefined> {
    const d = this.d;
    if (!d.archivedJob || isTerminal(job.status?.phase) || this.historyAsked.has(jobId)) return undefined;
    if (!(Date.parse(job.metadata.creationTimestamp ?? '') < this.startedAt)) return undefined;
    this.historyAsked.add(jobId);
    let archived: GenerationJob | undefined;
    try {
      archived = await d.archivedJob(jobId);
    } catch (err) {
      if (!this.historyDownSaid)
        d.log.warn(
          { err: (err as Error).message },
          'the job history did not answer: unfinished jobs from before this start run without being checked against it',
        );
      this.historyDownSaid = true;
      return undefined;
    }
    const end = archived?.status;
    if (!end || archived?.metadata.uid !== job.metadata.uid || !isTerminal(end.phase)) return undefined;
    // Asked again unless the write lands (then the job is finished, and never asked).
    this.historyAsked.delete(jobId);
    if (!(await this.writeStatus(jobId, job, end))) return { requeueAfterMs: 50 };
    const said = `the job history holds this job as ${end.phase} (at ${end.completedAt ?? 'an earlier time'}) while the cluster had it ${job.status?.phase ?? 'pending'}, as after a restore from an older backup: it takes that end instead of running again`;
    d.log.warn({ jobId, account: job.spec.account, phase: end.phase }, said);
    void d.events.record(jobSubject(job), 'Warning', 'EndedInHistory', said);
    return { requeueAfterMs: 1 };
  }

  private async startPod(job: GenerationJob, attempt: number, runtime: Runtime, now: number): Promise<void> {
    const d = this.d;
    const jobId = job.metadata.name ?? '';
    // Its outputs' upload grant outlives the longest the Pod may wait to start (a node being
    // added) and its whole run, with ten minutes to spare: one that expired while the Pod
    // waited failed a finished run OUTPUT_STORE_FAILED.
    const grant = d.blob.grantForPrefix(
      jobPrefix(jobId),
      new Date(now + d.settings.podStartTimeoutMs + (runtime.timeoutSeconds + 600) * 1000),
    );
    const pod = buildWorkerPod(job, attempt, runtime, { ...d.pod, blobGrant: grant });
    // Counted as starting by the caller (reconcile), before its status write.
    try {
      await createPod(d.kube, pod);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        d.admission.unmark(job);
        await this.sayRefused(jobId, job, err, now);
        throw err;
      }
    }
    this.refusedSaid.delete(jobId);
    if (!d.podCache.get(pod.metadata?.name ?? '')) this.createdPods.set(pod.metadata?.name ?? '', now);
  }

  /**
   * What is left of the removal grace a job's ModelRemoved condition started (written by a
   * controller that saw the model go), with a catalog loaded: a restart keeps the grace.
   */
  private removalGraceLeft(job: GenerationJob, now: number): number | undefined {
    const grace = this.d.catalogRemovalGraceMs;
    const removed = job.status?.conditions?.find((c) => c.type === 'Admitted' && c.reason === 'ModelRemoved');
    if (!grace || !removed || !this.d.catalog()) return undefined;
    const left = Date.parse(removed.lastTransitionTime) + grace - now;
    return left > 0 ? left : undefined;
  }

  /**
   * A waiting job whose model left the catalog, in its removal grace: its Admitted condition
   * says when it fails MODEL_UNAVAILABLE unless the model comes back (it said ModelPaused or
   * WaitingForCapacity before). Written once; a write someone else beat is said at the next look.
   */
  private async sayRemoved(jobId: string, job: GenerationJob, now: number, failsAt: number): Promise<void> {
    const admitted = job.status?.conditions?.find((c) => c.type === 'Admitted');
    if (admitted?.reason === 'ModelRemoved') return;
    await this.writeCondition(jobId, job, now, {
      type: 'Admitted',
      status: 'False',
      reason: 'ModelRemoved',
      message: `model ${job.spec.model} left the catalog: the job fails MODEL_UNAVAILABLE, refunded, at ${new Date(failsAt).toISOString()} unless it comes back`,
    });
  }

  /**
   * Sets one condition of the job in a status write of its own (a compare-and-swap, see
   * writeStatus). False when it was not written: someone else wrote first, or the apiserver
   * failed (logged); the caller says it again at its next look.
   */
  private async writeCondition(
    jobId: string,
    job: GenerationJob,
    now: number,
    condition: { type: string; status: 'True' | 'False'; reason: string; message: string },
  ): Promise<boolean> {
    const conditions = setCondition(
      job.status?.conditions,
      { ...condition, observedGeneration: job.metadata.generation },
      new Date(now),
    );
    return this.writeStatus(jobId, job, { ...job.status, conditions }).catch((err: unknown) => {
      this.d.log.warn(
        { jobId, err },
        `the ${condition.type} condition (${condition.reason}) could not be written`,
      );
      return false;
    });
  }

  /**
   * A worker Pod the apiserver refused (a ResourceQuota, a LimitRange, Pod Security, an
   * admission webhook): the job's PodRefused condition (so the api shows it no estimate: when
   * the cluster makes room is not known) and a Warning Event with the apiserver's reason, so
   * `kubectl describe gj` says why it waits; once per job and reason, not at every retry of
   * the key. A condition write someone else beat is said at the next refusal, on fresh state.
   */
  private async sayRefused(jobId: string, job: GenerationJob, err: unknown, now: number): Promise<void> {
    const code = statusCode(err);
    if (code !== 403 && code !== 422) return;
    const message = `the apiserver refused its worker Pod (${code}): ${apiMessage(err)}; the job waits and tries again (pending: until GENJOBS_QUEUE_TIMEOUT; a retry: for GENJOBS_POD_START_TIMEOUT, then it fails, refunded)`;
    if (this.refusedSaid.get(jobId) === message) return;
    const written = await this.writeCondition(jobId, job, now, {
      type: POD_REFUSED,
      status: 'True',
      reason: code === 403 ? 'Forbidden' : 'Invalid',
      message,
    });
    if (!written) return;
    this.refusedSaid.set(jobId, message);
    void this.d.events.record(jobSubject(job), 'Warning', 'PodRefused', message);
  }

  /**
   * No Pod references a Secret that is not model credentials; the job waits (and the key
   * retries with backoff) until the catalog or the Secret is fixed, or its queue time ends.
   * Called after markStarted (admission was decided without a pause, and this check may
   * read) and before the status write that admits the job, so a refused job stays pending.
   */
  private async checkCredentials(job: GenerationJob, runtime: Runtime): Promise<void> {
    const d = this.d;
    await d.credentials?.check(runtime).catch((err: unknown) => {
      d.admission.unmark(job);
      void d.events.record(jobSubject(job), 'Warning', 'CredentialsRefused', String((err as Error).message));
      throw err;
    });
  }

  /**
   * A finished job its open lease pays for stays until the lease is closed: the close counts
   * the lease's jobs from a list, and a job deleted before would be money no one accounts for.
   * The wait in ms, or undefined when the job may go. A lease past its close is held open
   * for its unfinished jobs (closed within a close batch of their end): looked at that often.
   */
  private keepForLease(job: GenerationJob, held: Holding, now: number): number | undefined {
    const lease = held === 'lease' ? this.d.money.leaseOf(job) : undefined;
    if (!lease) return undefined;
    const due = lease.expiresAt + this.d.leaseGraceMs;
    return due > now ? due - now + 1_000 : Math.max(1_000, closeBatchMs(this.d.leaseGraceMs));
  }

  /**
   * Deletes a Pod once: not once the cache shows it gone, nor while a deletion at least as
   * quick is under way (the cache shows its deletionTimestamp and grace period) or was sent
   * by this process less than {@link DELETE_PATIENCE_MS} ago, before the cache caught up.
   * After that it is asked again, in case the watch missed the deletion; a quicker one (a
   * finished job's, grace 0, after a graceful one) is sent at once.
   */
  private async deletePod(name: string, gracePeriodSeconds: number | undefined): Promise<void> {
    const now = this.d.now?.() ?? Date.now();
    // Grace undefined: the Pod's own (30 s by default), longer than any given here.
    const quicker = (than: number | undefined) =>
      gracePeriodSeconds !== undefined && (than === undefined || gracePeriodSeconds < than);
    const cached = this.d.podCache.get(name);
    // Every Pod asked for was read from the cache: gone from it now, it was deleted since
    // (while the reconcile that read it awaited its status write).
    if (!cached) return;
    const meta = cached.metadata;
    if (meta?.deletionTimestamp && !quicker(meta.deletionGracePeriodSeconds)) return;
    const sent = this.deletedPods.get(name);
    if (sent && now - sent.at < DELETE_PATIENCE_MS && !quicker(sent.grace)) return;
    this.deletedPods.set(name, { at: now, grace: gracePeriodSeconds });
    try {
      await deletePod(this.d.kube, name, { gracePeriodSeconds });
    } catch (err) {
      this.deletedPods.delete(name);
      throw err;
    }
  }

  private async act(job: GenerationJob, action: Action, held: Holding): Promise<void> {
    const d = this.d;
    const jobId = job.metadata.name ?? '';
    switch (action.kind) {
      case 'createPod':
        return;
      case 'deletePod':
        return this.deletePod(action.name, action.graceful ? undefined : 0);
      case 'settle': {
        // A failed or cancelled job's outputs are not paid for: none may stay readable.
        if (action.op === 'refund') await d.blob.deletePrefix(jobPrefix(jobId));
        // A completed job's lease money is spent when the lease closes, and a free job has
        // none: no write now.
        if ((held === 'lease' && action.op === 'charge') || held === 'free') return;
        const lease =
          held === 'lease' ? { id: job.spec.lease ?? '', cost: job.spec.costMicroCents } : undefined;
        // Not awaited: the ledger lingers to write many settlements at once, and a worker
        // must not wait with it. Settling is idempotent; a failure brings the job back.
        void d.ledger.run(job.spec.account, { kind: action.op, jobId, ...(lease ? { lease } : {}) }).then(
          (r) => {
            if (r.ok && action.op === 'refund' && r.amount > 0) {
              // A cancel's refund is counted by the api that wrote the cancel, whichever of
              // the two settled it first (both try; the ledger applies it once).
              if (job.status?.phase !== 'cancelled') d.metrics.creditsRefunded.inc(r.amount);
              d.log.info({ jobId, account: job.spec.account, refundedMicroCents: r.amount }, 'job refunded');
            }
          },
          () => d.enqueue(jobId),
        );
        return;
      }
      case 'deleteJob':
        await d.blob.deletePrefix(jobPrefix(jobId));
        await d.jobs.delete(jobId, { uid: job.metadata.uid });
        return;
      case 'event':
        // What an operator must look at is in the log too, with the job's ids, not only in
        // an Event (which kubectl shows for an hour): a lost Pod, a refused output, a failure.
        if (action.type === 'Warning')
          d.log.warn(
            {
              jobId,
              account: job.spec.account,
              model: job.spec.model,
              reason: action.reason,
              detail: action.message,
            },
            'job warning',
          );
        void d.events.record(jobSubject(job), action.type, action.reason, action.message);
        return;
    }
  }

  /**
   * Metrics and a log line for a phase the controller wrote: one line per start, retry and
   * end of a job, with what an operator asks first (whose, which model, how long, why).
   */
  private observeTransition(job: GenerationJob, status: GenerationJobStatus, now: number): void {
    const d = this.d;
    const from = job.status?.phase ?? 'pending';
    const to = status.phase ?? from;
    if (from === to) return;
    const model = job.spec.model;
    const since = Date.parse(
      (to === 'processing' ? job.metadata.creationTimestamp : job.status?.startedAt) ?? '',
    );
    d.log.info(
      {
        jobId: job.metadata.name,
        account: job.spec.account,
        model,
        from,
        attempt: status.attempts,
        ...(Number.isFinite(since) ? { seconds: Math.round((now - since) / 100) / 10 } : {}),
        ...(status.error ? { code: status.error.code, reason: status.error.message } : {}),
      },
      to === 'processing' ? 'job started' : `job ${to}`,
    );
    d.metrics.jobTransitions.inc({ from, to });
    const created = Date.parse(job.metadata.creationTimestamp ?? '') || now;
    if (to === 'processing') d.metrics.queueWait.observe({ model }, Math.max(0, now - created) / 1000);
    if (to === 'completed' || to === 'failed' || to === 'cancelled') {
      d.metrics.jobsFinished.inc({ model, phase: to });
      if (to === 'failed') d.metrics.jobsFailed.inc({ model, code: status.error?.code ?? 'UNKNOWN' });
      const started = Date.parse(job.status?.startedAt ?? '');
      if (started) d.metrics.runTime.observe({ model, phase: to }, Math.max(0, now - started) / 1000);
      // Its slot is handed on when the cache shows the end (main.ts, Admission.freedBy): the
      // cache may not show it yet now that the write returned.
    }
  }
}

/** The parts of a Pod that decisions read. Cached Pods carry timestamps as strings. */
export function podView(pod: Pod): PodView {
  const status = pod.status ?? {};
  const container = status.containerStatuses?.[0];
  const terminated = container?.state?.terminated;
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled');
  return {
    name: pod.metadata?.name ?? '',
    phase: (status.phase as PodView['phase']) ?? 'Pending',
    createdAt: timeOf(pod.metadata?.creationTimestamp)?.getTime() ?? Date.now(),
    startedAt: timeOf(
      container?.state?.running?.startedAt ?? terminated?.startedAt ?? status.startTime,
    )?.getTime(),
    finishedAt: timeOf(terminated?.finishedAt)?.getTime(),
    reason: status.reason,
    message: status.message ?? scheduled?.message,
    unschedulable: scheduled?.status === 'False' && scheduled.reason === 'Unschedulable',
    terminated: terminated
      ? { exitCode: terminated.exitCode, reason: terminated.reason, message: terminated.message }
      : undefined,
  };
}
