import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WebhookSecrets } from '../accounts/webhook-secret.ts';
import { openArchive } from '../archive/open.ts';
import type { ArchiveStore } from '../archive/store.ts';
import { blobConfigSchema } from '../blob/config.ts';
import { createBlob } from '../blob/create.ts';
import { CATALOG_SELECTOR, CatalogWatcher } from '../catalog/watcher.ts';
import { blobSettings, type Config } from '../config.ts';
import { phaseOf } from '../jobs/record.ts';
import type { Kube } from '../k8s/client.ts';
import { watchClock } from '../k8s/clock.ts';
import { configMapInformer } from '../k8s/configmaps.ts';
import { crInformer } from '../k8s/cr-informer.ts';
import { EventRecorder } from '../k8s/events.ts';
import { PROBE_JOB } from '../k8s/health.ts';
import type { InformerStats } from '../k8s/informer.ts';
import { LeaderElector } from '../k8s/leader.ts';
import { podInformer } from '../k8s/pods.ts';
import { resourceQuotaInformer } from '../k8s/quotas.ts';
import { resources } from '../k8s/resources.ts';
import { type Account, type GenerationJob, isTerminal, JOB_PHASES, type Upload } from '../k8s/types.ts';
import { type Clock, systemClock, type WorkQueueStats } from '../k8s/workqueue.ts';
import { Ledger } from '../ledger/ledger.ts';
import { Money } from '../ledger/money.ts';
import type { Logger } from '../log.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import type { Resolver } from '../webhooks/address.ts';
import { AccountEraser } from './account/erase.ts';
import { AccountReconciler } from './account/reconciler.ts';
import { ARCHIVE_CONCURRENCY, Archiver, jobKey, RETENTION_KEY, uploadKey } from './archive/archiver.ts';
import { Retention } from './archive/retention.ts';
import { healthServer } from './health.ts';
import { Admission } from './job/admission.ts';
import { ModelCredentials } from './job/credentials.ts';
import { podName } from './job/decide.ts';
import { JOB_LABEL, MANAGED_BY } from './job/pod.ts';
import { JobReconciler } from './job/reconciler.ts';
import { kindQueue } from './queue.ts';
import { DEFAULT_UPLOAD_SETTINGS } from './upload/decide.ts';
import { UploadReconciler, uploadQueueKey } from './upload/reconciler.ts';
import { pendingRetries, wantsWebhook } from './webhook/decide.ts';
import { WebhookReconciler } from './webhook/reconciler.ts';

export interface ControllerDependencies {
  config: Config;
  kube: Kube;
  log: Logger;
  metrics?: Metrics;
  now?: () => number;
  /**
   * Timers of the upload and webhook queues' requeue-afters, and the time when `now` is not
   * given. Tests pass a clock they can move forward, so an upload expires without an hour's wait.
   */
  clock?: Clock;
  /** CA certificates trusted for webhook receivers besides the system ones (NODE_EXTRA_CA_CERTS also works). */
  webhookCa?: string | Buffer | Array<string | Buffer>;
  /** Resolves webhook hosts; default the system resolver (tests give names their addresses). */
  webhookResolve?: Resolver;
  /** Multiplies every wait of the webhook retry schedule; 1 (the default) in production. */
  webhookScheduleScale?: number;
  /** The job archive; default: the one GENJOBS_ARCHIVE names (none when off), which stop() closes. */
  archive?: ArchiveStore;
}

/**
 * What the controller holds in memory, as /debug/state shows it (docs/operations.md):
 * counts and times only, never a job, account or key name.
 */
export interface ControllerState {
  at: string;
  leader: boolean;
  /** Per kind of work queue. */
  queues: Record<string, WorkQueueStats>;
  /** Per cached kind. */
  informers: Record<string, InformerStats>;
  /** Per model with jobs holding or waiting for a slot. */
  admission: Record<string, ReturnType<Admission['state']>>;
}

export interface RunningController {
  url: string;
  metrics: Metrics;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * The controller process: informer caches of jobs, their Pods, accounts and the catalog
 * (ready once synced, leader or not), and, while this replica leads, one work queue per
 * kind feeding its reconciler.
 */
export async function startController(deps: ControllerDependencies): Promise<RunningController> {
  const { config, kube, log } = deps;
  const clock = deps.clock ?? systemClock;
  // The apiserver's clock: the creation times it stamps, the Pods' starts and the api
  // replicas' lease expiries are compared with it, whatever this node's clock says.
  const now = deps.now ?? (() => clock.now() + kube.clock.offsetMs());
  watchClock(kube, log);
  const metrics = deps.metrics ?? createMetrics();
  const r = resources(kube);
  const jobs = crInformer<GenerationJob>(kube, r.jobs, log);
  const accounts = crInformer<Account>(kube, r.accounts, log);
  const uploads = crInformer<Upload>(kube, r.uploads, log);
  const managed = Object.entries(MANAGED_BY)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = podInformer(kube, { labelSelector: managed, log: log.child({ informer: 'pods' }) });
  pods.addIndex('job', (p) => [p.metadata?.labels?.[JOB_LABEL] ?? '']);
  // Not needed to be ready: only a shortcut for jobs a full quota refused (see below).
  const quotas = resourceQuotaInformer(kube, log.child({ informer: 'resourcequotas' }));
  const events = new EventRecorder(kube, 'genjobs-controller', log);
  // Both results from 0, as the api's: its catalog is built from the same ConfigMaps.
  for (const result of ['ok', 'error']) metrics.catalogReloads.inc({ result }, 0);
  const catalog = new CatalogWatcher({
    informer: configMapInformer(kube, CATALOG_SELECTOR, log.child({ informer: 'catalog' })),
    log: log.child({ part: 'catalog' }),
    removalGraceMs: config.GENJOBS_CATALOG_REMOVAL_GRACE,
    now,
    // Jobs paused for a missing catalog or model look again as soon as it changes.
    onReload: (result, loaded) => {
      metrics.catalogReloads.inc({ result });
      metrics.catalogModels.set(loaded?.variants.length ?? 0);
      if (result !== 'ok') return;
      for (const job of jobs.list())
        if (phaseOf(job) === 'pending') jobQueue.queue.add(job.metadata.name ?? '');
    },
  });
  const blob = createBlob(blobConfigSchema.parse(blobSettings(config)), {
    now,
    logger: log.child({ part: 'blob' }),
  });
  const ledger = new Ledger({
    accounts: r.accounts,
    cached: (n) => accounts.get(n),
    onBatch: (n) => metrics.ledgerBatch.observe(n),
    settleLingerMs: config.GENJOBS_SETTLE_LINGER,
  });
  const money = new Money(jobs, accounts);
  const admission = new Admission(jobs, {
    eligible: (job) => money.holding(job) !== 'none',
    accountMax: (name) => config.GENJOBS_PLANS[accounts.get(name)?.spec.plan ?? ''] ?? 0,
    hasPod: (job) => pods.countByIndex('job', job.metadata.name ?? '') > 0,
    workerDone: (job) =>
      pods.get(podName(job.metadata.name ?? '', Math.max(1, job.status?.attempts ?? 0)))?.status?.phase ===
      'Succeeded',
  });
  const publicFiles = blobSettings(config).publicBaseUrl ?? `${config.GENJOBS_PUBLIC_URL}/files`;

  const names = (list: readonly { metadata?: { name?: string } }[]) =>
    list.map((o) => o.metadata?.name ?? '');
  const common = { metrics, log };
  const jobQueue = kindQueue({
    ...common,
    kind: 'GenerationJob',
    concurrency: config.GENJOBS_CONTROLLER_CONCURRENCY,
    reconcile: (key) => jobReconciler.reconcile(key),
    all: () => names(jobs.list()),
  });
  const accountQueue = kindQueue({
    ...common,
    kind: 'Account',
    concurrency: 4,
    reconcile: (key) => accountReconciler.reconcile(key),
    all: () => names(accounts.list()),
  });
  // Uploads and webhooks wait on wall-clock deadlines: their timers follow the injected clock.
  const uploadQueue = kindQueue({
    ...common,
    kind: 'Upload',
    concurrency: 4,
    clock,
    reconcile: (key) => uploadReconciler.reconcile(key),
    all: () => uploads.list().map(uploadQueueKey),
  });
  const webhookQueue = kindQueue({
    ...common,
    kind: 'Webhook',
    concurrency: config.GENJOBS_WEBHOOK_CONCURRENCY,
    clock,
    reconcile: (key) => webhookReconciler.reconcile(key),
    all: () => names(jobs.list().filter(wantsWebhook)),
  });
  // Waiting jobs are decided again when a slot of their model frees, from the cache that
  // shows it free: one key per model, so a burst of ends costs one look at the backlog.
  const admissionQueue = kindQueue({
    ...common,
    kind: 'Admission',
    concurrency: 1,
    reconcile: async (model) => {
      const runtime = catalog.current?.variantsBySlug.get(model)?.runtime;
      for (const id of admission.next(model, runtime?.maxConcurrency ?? 0)) jobQueue.queue.add(id);
      return undefined;
    },
    // A new leader reconciles every job anyway.
    all: () => [],
  });
  // --- job history: the archiver (none when GENJOBS_ARCHIVE=off) ---
  const archive = deps.archive ?? (await openArchive(config, log, kube.namespace));
  const archiver =
    archive &&
    new Archiver({
      archive,
      jobs: r.jobs,
      jobCache: jobs,
      uploads: r.uploads,
      uploadCache: uploads,
      podCache: pods,
      accountCache: accounts,
      retention: new Retention({
        archive,
        blob: blob.store,
        metrics,
        now,
        retentionMs: config.GENJOBS_RETENTION,
        batch: config.GENJOBS_RETENTION_BATCH,
      }),
      metrics,
      log: log.child({ part: 'archive' }),
      now,
      keepFinishedMs: config.GENJOBS_KEEP_FINISHED,
    });
  const archiveQueue = kindQueue({
    ...common,
    kind: 'Archive',
    concurrency: ARCHIVE_CONCURRENCY,
    clock,
    reconcile: async (key) => archiver?.reconcile(key),
    all: () =>
      archiver
        ? [
            ...jobs
              .list()
              .filter((j) => isTerminal(j.status?.phase))
              .map((j) => jobKey(j.metadata.name ?? '')),
            ...uploads
              .list()
              .filter((u) => u.status?.phase === 'expired')
              .map((u) => uploadKey(u.metadata.name ?? '')),
            RETENTION_KEY,
          ]
        : [],
  });
  const queues = [jobQueue, admissionQueue, accountQueue, uploadQueue, webhookQueue, archiveQueue];

  const jobReconciler = new JobReconciler({
    kube,
    credentials: new ModelCredentials(kube),
    jobs: r.jobs,
    jobCache: jobs,
    podCache: pods,
    accountCache: accounts,
    ledger,
    money,
    leaseGraceMs: config.GENJOBS_LEASE_GRACE,
    catalog: () => catalog.current,
    catalogPause: (slug) => catalog.pauseFor(slug),
    catalogRemovalGraceMs: config.GENJOBS_CATALOG_REMOVAL_GRACE,
    admission,
    blob: blob.store,
    archived: archive
      ? async (id) => archiver?.deletedArchived(id) || (await archive.getRecord(id)) !== undefined
      : undefined,
    archivedJob: archive ? (id) => archive.getJob(id) : undefined,
    events,
    metrics,
    log,
    now,
    enqueue: (id) => jobQueue.queue.add(id),
    settings: {
      podStartTimeoutMs: config.GENJOBS_POD_START_TIMEOUT,
      queueTimeoutMs: config.GENJOBS_QUEUE_TIMEOUT,
      maxAttempts: config.GENJOBS_MAX_ATTEMPTS,
      ttlMs: config.GENJOBS_JOB_TTL,
      // With the archive on, finished jobs (cancelled ones too) leave etcd through the
      // archiver after GENJOBS_KEEP_FINISHED, archived first; a delete here would lose the
      // record, so the TTLs are only a backstop then.
      cancelledTtlMs: archiver ? config.GENJOBS_JOB_TTL : config.GENJOBS_CANCELLED_JOB_TTL,
      keepPodMs: config.GENJOBS_KEEP_FINISHED,
      retryBaseMs: config.GENJOBS_RETRY_BASE,
      reservationGraceMs: config.GENJOBS_RESERVATION_GRACE,
    },
    pod: {
      image: config.GENJOBS_WORKER_IMAGE,
      command: config.GENJOBS_WORKER_COMMAND,
      // Workers write outputs (and, with s3, read uploads) through the api's /files, never
      // the bucket's public URL: it takes no grants.
      blobUrl: config.GENJOBS_BLOB_INTERNAL_URL ?? `${config.GENJOBS_PUBLIC_URL.replace(/\/$/, '')}/files`,
      blobPublicUrl: publicFiles,
      priorityClassName: config.GENJOBS_WORKER_PRIORITY_CLASS,
      serviceAccountName: config.GENJOBS_WORKER_SERVICE_ACCOUNT,
      resources: config.GENJOBS_WORKER_RESOURCES,
      nodeSelector: config.GENJOBS_WORKER_NODE_SELECTOR,
      tolerations: config.GENJOBS_WORKER_TOLERATIONS,
      allowPrivateInputs: config.GENJOBS_WORKER_ALLOW_PRIVATE_INPUTS,
    },
  });
  const accountReconciler = new AccountReconciler({
    metrics,
    accounts: r.accounts,
    accountCache: accounts,
    jobs: r.jobs,
    jobCache: jobs,
    ledger,
    events,
    log,
    now,
    reservationGraceMs: config.GENJOBS_RESERVATION_GRACE,
    leaseGraceMs: config.GENJOBS_LEASE_GRACE,
    leaseHoldMs: config.GENJOBS_LEASE_HOLD,
    money,
    plans: config.GENJOBS_PLANS,
    enqueueJob: (id) => jobQueue.queue.add(id),
    erase: (account) => eraser.erase(account),
  });
  const eraser = new AccountEraser({
    accounts: r.accounts,
    jobs: r.jobs,
    jobCache: jobs,
    uploads: r.uploads,
    uploadCache: uploads,
    archive: archive ?? undefined,
    blob: blob.store,
    events,
    log: log.child({ part: 'erase' }),
    now,
  });
  const uploadReconciler = new UploadReconciler({
    uploads: r.uploads,
    uploadCache: uploads,
    blob: blob.store,
    events,
    log: log.child({ part: 'uploads' }),
    now,
    settings: { ...DEFAULT_UPLOAD_SETTINGS, expiredRetentionMs: config.GENJOBS_UPLOAD_EXPIRED_RETENTION },
  });
  const webhookReconciler = new WebhookReconciler({
    jobs: r.jobs,
    jobCache: jobs,
    accountCache: accounts,
    secrets: new WebhookSecrets({ kube, now, namespace: config.GENJOBS_WEBHOOK_SECRET_NAMESPACE }),
    events,
    metrics,
    log: log.child({ part: 'webhooks' }),
    now,
    policy: { allowPrivateTargets: config.GENJOBS_WEBHOOK_ALLOW_PRIVATE },
    ca: deps.webhookCa,
    resolve: deps.webhookResolve,
    scheduleScale: deps.webhookScheduleScale,
    // A quarter of the delivery slots: one account's stalling receiver cannot hold them all.
    maxPerAccount: Math.max(1, Math.floor(config.GENJOBS_WEBHOOK_CONCURRENCY / 4)),
  });

  // Informer handlers only enqueue keys.
  jobs.on((type, job) => {
    jobQueue.queue.add(job.metadata.name ?? '');
    // Whoever ended it (this process, a former leader, an operator's delete), its slot is
    // free as of this event: the cache shows it now.
    if (type === 'delete' || isTerminal(phaseOf(job)))
      for (const model of admission.freedBy(job)) admissionQueue.queue.add(model);
    if (type !== 'delete' && wantsWebhook(job)) webhookQueue.queue.add(job.metadata.name ?? '');
    if (archiver && isTerminal(job.status?.phase)) archiveQueue.queue.add(jobKey(job.metadata.name ?? ''));
  });
  uploads.on((_type, upload) => {
    uploadQueue.queue.add(uploadQueueKey(upload));
    if (archiver && upload.status?.phase === 'expired')
      archiveQueue.queue.add(uploadKey(upload.metadata.name ?? ''));
  });
  pods.on((_type, pod) => {
    const job = pod.metadata?.labels?.[JOB_LABEL];
    if (!job) return;
    // A worker that succeeded frees its slot now; its job's end is written meanwhile.
    const freed = admission.refresh(job);
    if (freed) admissionQueue.queue.add(freed);
    jobQueue.queue.add(job);
    // A finished job is archived once its Pods have stopped.
    if (archiver && isTerminal(jobs.get(job)?.status?.phase)) archiveQueue.queue.add(jobKey(job));
  });
  // A worker Pod a full ResourceQuota refused fits once the quota's usage falls (a Pod of
  // the namespace finished or went) or its limits rise: its job tries again then, not only
  // when its key's backoff (up to 5 minutes) comes round. They are few: a refused job goes
  // back to its place in its model's queue, so only the oldest within the model's free slots
  // are admitted and refused; woken in the order they were refused, the same ones try first.
  quotas.on((type, quota) => {
    if (type === 'add') return;
    const waiting = [...jobReconciler.podRefused()];
    if (waiting.length === 0) return;
    log.info(
      { quota: quota.metadata?.name, change: type, jobs: waiting.length },
      'a ResourceQuota changed; jobs whose worker Pod it refused try again',
    );
    for (const jobId of waiting) jobQueue.queue.add(jobId);
  });
  accounts.on((_type, account) => {
    accountQueue.queue.add(account.metadata.name ?? '');
    for (const key of archiver?.waitingOn(account.metadata.name ?? '') ?? []) archiveQueue.queue.add(key);
    // A new job seen before its money (reservation or lease) is worth another look once it shows.
    const name = account.metadata.name ?? '';
    for (const [jobId, of] of jobReconciler.awaitingReservation) {
      if (of === name && jobReconciler.awaitingReservation.delete(jobId)) jobQueue.queue.add(jobId);
    }
  });

  const informers = [jobs, accounts, pods, uploads];
  let leading = false;
  // Serving before the caches sync: the first list of a large cluster may take longer than
  // the startup probe waits, and /healthz must not restart a controller that is listing.
  // /readyz says "caches not synced" meanwhile.
  const stopProbe = kube.health.watch(() => r.jobs.get(PROBE_JOB), config.GENJOBS_KUBE_PROBE_INTERVAL);
  const health = await healthServer({
    host: config.HOST,
    port: config.GENJOBS_CONTROLLER_PORT,
    metrics,
    notReady: () => (informers.every((i) => i.synced) ? kube.health.unreachable() : 'caches not synced'),
    beforeScrape: () => {
      const counts = Object.fromEntries(JOB_PHASES.map((p) => [p, 0]));
      for (const j of jobs.list()) counts[phaseOf(j)] = (counts[phaseOf(j)] ?? 0) + 1;
      for (const [phase, n] of Object.entries(counts)) metrics.jobsByPhase.set({ phase }, n);
      for (const { kind, queue } of queues) metrics.queueDepth.set({ kind }, queue.depth);
      metrics.webhooksPending.set(pendingRetries(jobs.list()));
      metrics.archiveLag.set(leading ? (archiver?.lagSeconds() ?? 0) : 0);
    },
    state: (): ControllerState => ({
      at: new Date(now()).toISOString(),
      leader: leading,
      queues: Object.fromEntries(queues.map(({ kind, queue }) => [kind, queue.stats()])),
      informers: {
        GenerationJob: jobs.stats(),
        Account: accounts.stats(),
        Upload: uploads.stats(),
        Pod: pods.stats(),
        ResourceQuota: quotas.stats(),
      },
      // Per model with jobs: a model with free slots and jobs waiting is stuck.
      admission: Object.fromEntries(
        [...(catalog.current?.variantsBySlug ?? [])]
          .map(([slug, v]) => [slug, admission.state(slug, v.runtime.maxConcurrency)] as const)
          .filter(([, a]) => a.holding + a.waiting > 0),
      ),
    }),
  });
  await Promise.all([...informers.map((i) => i.start()), catalog.start(), quotas.start()]);
  await Promise.all(informers.map((i) => i.waitForSync()));

  const lead = () => {
    leading = true;
    metrics.leader.set(1);
    for (const { queue, all } of queues) {
      for (const key of all()) queue.add(key);
      queue.start();
    }
  };
  const follow = () => {
    leading = false;
    metrics.leader.set(0);
    archiver?.stopLeading();
    for (const { queue } of queues) void queue.shutdown();
  };
  const elector = config.GENJOBS_LEADER_ELECTION
    ? new LeaderElector(kube, {
        leaseName: config.GENJOBS_LEASE_NAME,
        identity: `${config.POD_NAME ?? hostname()}-${randomBytes(3).toString('hex')}`,
        leaseDurationMs: config.GENJOBS_LEASE_DURATION,
        renewDeadlineMs: config.GENJOBS_LEASE_RENEW_DEADLINE,
        retryPeriodMs: config.GENJOBS_LEASE_RETRY_PERIOD,
        log,
        onStartedLeading: lead,
        onStoppedLeading: follow,
      })
    : undefined;
  if (elector) elector.start();
  else lead();

  log.info({ url: health.url, leaderElection: Boolean(elector) }, 'controller started');
  return {
    url: health.url,
    metrics,
    isLeader: () => leading,
    async stop() {
      stopProbe();
      // Work in flight drains while the Lease is still held (and renewed); only then is it
      // released, so a successor never acts beside a predecessor that is still finishing.
      await Promise.all(queues.map(({ queue }) => queue.shutdown()));
      await ledger.flush();
      await elector?.stop();
      await health.close();
      await Promise.all([...informers.map((i) => i.stop()), catalog.stop(), quotas.stop()]);
      if (!deps.archive) await archive?.close();
    },
  };
}
