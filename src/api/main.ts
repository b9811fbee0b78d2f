import { setFlagsFromString } from 'node:v8';
import { openArchive } from '../archive/open.ts';
import type { ArchiveStore } from '../archive/store.ts';
import { blobConfigSchema } from '../blob/config.ts';
import { type Blob, createBlob } from '../blob/create.ts';
import { FilesystemBlobStore, sweepAbandonedWrites } from '../blob/filesystem.ts';
import { jobOfKey } from '../blob/keys.ts';
import type { Catalog } from '../catalog/index.ts';
import { CATALOG_SELECTOR, CatalogWatcher } from '../catalog/watcher.ts';
import { blobSettings, type Config, publicBasePath } from '../config.ts';
import { AppError } from '../errors.ts';
import { HISTORY_SIZE } from '../jobs/eta.ts';
import { eraseMode } from '../jobs/labels.ts';
import type { Kube } from '../k8s/client.ts';
import { watchClock } from '../k8s/clock.ts';
import { configMapInformer } from '../k8s/configmaps.ts';
import { crInformer } from '../k8s/cr-informer.ts';
import { isNotFound } from '../k8s/errors.ts';
import { EventRecorder } from '../k8s/events.ts';
import { PROBE_JOB } from '../k8s/health.ts';
import { resources } from '../k8s/resources.ts';
import { type Account, type ApiKey, type GenerationJob, isTerminal, type Upload } from '../k8s/types.ts';
import { CreditLeases } from '../ledger/credit-leases.ts';
import { Ledger } from '../ledger/ledger.ts';
import { Money } from '../ledger/money.ts';
import type { Logger } from '../log.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import { isUploadContentType, maxSizeOf } from '../uploads/policy.ts';
import { accountRoutes } from './account/routes.ts';
import { createApp } from './app.ts';
import { Authenticator } from './auth.ts';
import { jsonBodyReader } from './body.ts';
import { catalogRoutes } from './catalog/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { eventRoutes } from './jobs/events.ts';
import { StreamHub } from './jobs/hub.ts';
import { PlanGate } from './jobs/plan-gate.ts';
import { QueueView } from './jobs/queue.ts';
import { jobRoutes } from './jobs/routes.ts';
import { JobService } from './jobs/service.ts';
import { unfinishedByAccount } from './jobs/unfinished.ts';
import { limitSettings } from './limits/config.ts';
import { RequestLimits } from './limits/limits.ts';
import { listen, type RunningServer } from './server.ts';
import { uploadRoutes } from './uploads/routes.ts';
import { UploadService } from './uploads/service.ts';

export interface ApiDependencies {
  config: Config;
  kube: Kube;
  log: Logger;
  metrics?: Metrics;
  now?: () => number;
  /** The job history; default: the one GENJOBS_ARCHIVE names (none when off), which stop() closes. */
  archive?: ArchiveStore;
}

export interface RunningApi extends RunningServer {
  metrics: Metrics;
  blob: Blob;
  /** The catalog in service (tests, dev). */
  catalog: () => Catalog | undefined;
  stop(): Promise<void>;
}

const EMPTY_CATALOG_MESSAGE = 'the model catalog has not loaded yet';

/**
 * Turns off V8's allocation-site pretenuring for this process, before the caches fill.
 * Measured with 2,000 live jobs at c=16 (the bench's archive reads, `--trace-gc-nvp`):
 * 9.7-10.1 MB promoted per scavenge and 11-12 ms pauses with it, 2.9-3.1 MB and 4.0-4.2 ms
 * without; read p99s fell from 14-16 ms to 4-11 ms and list pages from 24-25 ms to 18 ms.
 * With 500 live jobs some starts showed it and some did not. The likely mechanism (not
 * traced to one site): V8 learns from sites whose objects all lived on (the first informer
 * lists fill the caches) to allocate there straight into old space; when requests then
 * allocate at those sites, their garbage in old space keeps the young objects it points to
 * alive through scavenges, which promote them. A runtime flag, read where V8 digests its
 * allocation feedback: set here it gave the command-line flag's figures, and no launcher
 * (chart, dev mode, tests) has to pass it.
 */
function noPretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/**
 * The api process: informer caches for the catalog ConfigMaps, ApiKeys, Accounts and
 * GenerationJobs, and the HTTP server. Ready once every cache has synced.
 */
export async function startApi(deps: ApiDependencies): Promise<RunningApi> {
  const { config, kube, log } = deps;
  noPretenuring();
  // The apiserver's clock, which the controller reads too: a lease's expiry, a key's, an
  // Idempotency-Key's window mean the same moment to every process whatever their nodes' clocks.
  const now = deps.now ?? (() => kube.clock.now());
  watchClock(kube, log);
  const metrics = deps.metrics ?? createMetrics();
  const r = resources(kube);
  const keys = crInformer<ApiKey>(kube, r.apiKeys, log);
  const accounts = crInformer<Account>(kube, r.accounts, log);
  const jobs = crInformer<GenerationJob>(kube, r.jobs, log);
  const uploads = crInformer<Upload>(kube, r.uploads, log);
  jobs.addIndex('account', (j) => [j.spec.account]);
  const unfinishedJobs = unfinishedByAccount(jobs);
  uploads.addIndex('account', (u) => [u.spec.account]);
  // Both results from 0: an alert on increase() misses the first error of a series that starts at 1.
  for (const result of ['ok', 'error']) metrics.catalogReloads.inc({ result }, 0);
  const watcher = new CatalogWatcher({
    informer: configMapInformer(kube, CATALOG_SELECTOR, log.child({ informer: 'catalog' })),
    events: new EventRecorder(kube, 'genjobs-api', log),
    log: log.child({ part: 'catalog' }),
    onReload: (result, catalog) => {
      metrics.catalogReloads.inc({ result });
      metrics.catalogModels.set(catalog?.variants.length ?? 0);
    },
  });
  const catalog = (): Catalog => {
    const c = watcher.current;
    if (!c) throw new AppError('UNAVAILABLE', EMPTY_CATALOG_MESSAGE, { retryAfterSeconds: 2 });
    return c;
  };

  const ledger = new Ledger({
    accounts: r.accounts,
    cached: (n) => accounts.get(n),
    onBatch: (n) => metrics.ledgerBatch.observe(n),
  });
  const queue = new QueueView({ jobs, catalog, now });
  // CONCURRENT_JOBS_EXCEEDED's Retry-After, from the plan gate and the live-jobs cap alike.
  const firstFinishIn = (account: string) => queue.firstFinishIn(jobs.eachByIndex('account', account));
  // Unfinished jobs as this process knows them: the cache's, and its own writes it does not show yet.
  const gate = new PlanGate(jobs, unfinishedJobs, now);
  const limits = new RequestLimits({
    settings: limitSettings(config),
    unfinishedJobs: (account) => gate.unfinished(account),
    firstFinishIn,
    uploadCache: uploads,
    now,
  });
  const auth = new Authenticator({
    apiKeys: r.apiKeys,
    accounts: r.accounts,
    cachedKey: (n) => keys.get(n),
    cachedAccount: (n) => accounts.get(n),
    keyEvents: keys,
    now,
    limit: (principal, req) => limits.check(principal, req),
    readBody: jsonBodyReader(config.GENJOBS_BODY_LIMIT),
  });
  // The lease this process wrote a moment ago counts before its cache shows it.
  const money = new Money(jobs, (name) => ledger.freshest(name));
  const leases = new CreditLeases({
    ledger,
    termMs: config.GENJOBS_LEASE_TERM,
    now,
    onError: (err) =>
      // An account deleted meanwhile (`genjobs accounts delete`, kubectl) has no lease left to settle.
      (err instanceof AppError && err.code === 'UNAUTHORIZED_ACCESS') || isNotFound(err)
        ? log.info({ err: (err as Error).message }, 'a credit lease of a deleted account was not released')
        : log.warn({ err }, 'a credit lease write failed; the controller settles the lease'),
    drawnFrom: (lease) => money.drawnFrom(lease),
  });
  const archive = deps.archive ?? (await openArchive(config, log, kube.namespace));
  const hub = new StreamHub({
    jobs,
    changes: queue,
    record: (j) => queue.record(j),
    maxPerAccount: config.GENJOBS_MAX_EVENT_STREAMS,
  });
  // A revoked or disabled key, a deleted account: their open streams end now. (Not at every
  // Account event: the ledger writes one for each lease and settlement.)
  keys.on((_type, key) => hub.recheck(key.spec.account));
  accounts.on((type, account) => {
    if (type === 'delete' || eraseMode(account)) hub.recheck(account.metadata.name ?? '');
  });
  const service = new JobService({
    archive,
    jobs: r.jobs,
    jobCache: jobs,
    ledger,
    leases,
    money,
    catalog,
    plans: config.GENJOBS_PLANS,
    maxLiveJobs: config.GENJOBS_MAX_LIVE_JOBS,
    gate,
    firstFinishIn,
    webhookPolicy: { allowPrivateTargets: config.GENJOBS_WEBHOOK_ALLOW_PRIVATE },
    eta: queue,
    now,
    onSubmitted: (model, cost) => {
      metrics.jobsSubmitted.inc({ model });
      metrics.creditsCharged.inc(cost);
    },
    // The api writes cancels, so it counts them; the controller counts the other endings.
    onCancelled: (model, refunded) => {
      metrics.jobsFinished.inc({ model, phase: 'cancelled' });
      metrics.creditsRefunded.inc(refunded);
    },
  });

  const blob = createBlob(blobConfigSchema.parse(blobSettings(config)), {
    now,
    logger: log.child({ part: 'blob' }),
    // An upload over its type's limit (possible with S3's presigned PUT) is never served.
    readLimit: (_key, info) =>
      isUploadContentType(info.contentType) ? maxSizeOf(info.contentType) : undefined,
    grantOpen: (key) => {
      const id = jobOfKey(key);
      const job = id === undefined ? undefined : jobs.get(id);
      return job !== undefined && !isTerminal(job.status?.phase);
    },
    uploadOpen: (key) => uploadService.acceptsFile(key),
  });
  // A PUT a crash interrupted leaves its temp file in the filesystem store; cleared hourly.
  const stopSweep =
    blob.store instanceof FilesystemBlobStore
      ? sweepAbandonedWrites(blob.store, log.child({ part: 'blob' }))
      : () => {};
  const uploadService = new UploadService({
    uploads: r.uploads,
    uploadCache: uploads,
    store: blob.store,
    quota: limits,
    now,
  });
  const informers = [keys, accounts, jobs, uploads];
  await Promise.all([...informers.map((i) => i.start()), watcher.start()]);
  if (archive) await learnArchivedRuns(queue, archive, watcher.current, log);
  // Readiness follows the apiserver too: a submit needs it, and a load balancer should send
  // clients to a replica that can answer rather than one whose calls time out.
  const stopProbe = kube.health.watch(() => r.jobs.get(PROBE_JOB), config.GENJOBS_KUBE_PROBE_INTERVAL);
  const notReady = () =>
    !informers.every((i) => i.synced)
      ? 'caches not synced'
      : watcher.current === undefined
        ? EMPTY_CATALOG_MESSAGE
        : kube.health.unreachable();

  const basePath = publicBasePath(config.GENJOBS_PUBLIC_URL);
  const app = createApp({
    log,
    metrics,
    basePath,
    notReady,
    rawRouters: [['/files', blob.router]],
    routers: [
      catalogRoutes(catalog, auth),
      jobRoutes(service, auth),
      eventRoutes(service, hub, auth),
      docsRoutes(basePath),
      uploadRoutes(uploadService, auth),
      accountRoutes(auth, config.GENJOBS_PLANS),
    ],
  });
  const server = await listen(app, config.HOST, config.PORT, log);
  return {
    ...server,
    metrics,
    blob,
    catalog: () => watcher.current,
    async stop() {
      stopProbe();
      stopSweep();
      hub.closeAll(); // event streams would hold the server open until the grace period
      await server.close();
      // Unused credit goes back now rather than when the controller closes the leases.
      leases.retireAll();
      await ledger.flush();
      await Promise.all([...informers.map((i) => i.stop()), watcher.stop()]);
      if (!deps.archive) await archive?.close();
    },
  };
}

/** How long a start waits for the archive's run history before it serves without it. */
const RUN_HISTORY_WAIT_MS = 3_000;

/**
 * Each variant's latest completed runs, from the archive into the completion estimates. The
 * cache holds only jobs finished within `keepFinished`, so without them a restarted api would
 * estimate from the catalog's typical times (30 s for an image that takes 2) until enough
 * jobs complete again. The start waits for this up to {@link RUN_HISTORY_WAIT_MS}; a slow
 * archive is still read in the background, and one that is down leaves the typical times.
 */
async function learnArchivedRuns(
  queue: QueueView,
  archive: ArchiveStore,
  catalog: Catalog | undefined,
  log: Logger,
): Promise<void> {
  const slugs = catalog?.variants.map((v) => v.slug) ?? [];
  const learn = (async () => {
    const learned = queue.learnRuns(await archive.recentRuns(slugs, HISTORY_SIZE));
    log.info(
      { runs: learned, variants: slugs.length },
      'completion estimates learned from the archived runs',
    );
  })().catch((err: unknown) =>
    log.warn(
      { err: (err as Error).message },
      "the archive's runs could not be read; estimates use the catalog's typical times until jobs complete",
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([learn, new Promise<void>((r) => (timer = setTimeout(r, RUN_HISTORY_WAIT_MS)))]);
  clearTimeout(timer);
}
