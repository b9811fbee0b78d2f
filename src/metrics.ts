import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric of the service, made on a registry passed in (tests get their own). Labels
 * are low-cardinality by rule: routes as templates, models as slugs from the catalog,
 * never a job id or an account.
 */
export function createMetrics(registry = new Registry(), options: { processMetrics?: boolean } = {}) {
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const r = [registry];
  return {
    registry,
    httpDuration: new Histogram({
      name: 'genjobs_http_request_duration_seconds',
      help: 'HTTP request latency by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
    jobsSubmitted: new Counter({
      name: 'genjobs_jobs_submitted_total',
      help: 'Jobs accepted by submit',
      labelNames: ['model'],
      registers: r,
    }),
    jobsFinished: new Counter({
      name: 'genjobs_jobs_finished_total',
      help: 'Jobs that reached a terminal phase',
      labelNames: ['model', 'phase'],
      registers: r,
    }),
    jobsFailed: new Counter({
      name: 'genjobs_jobs_failed_total',
      help: 'Failed jobs by error code (GENERATION_FAILED: the model; the others: the service or its inputs, see the README)',
      labelNames: ['model', 'code'],
      registers: r,
    }),
    jobTransitions: new Counter({
      name: 'genjobs_job_transitions_total',
      help: 'Job phase transitions written by the controller',
      labelNames: ['from', 'to'],
      registers: r,
    }),
    jobsByPhase: new Gauge({
      name: 'genjobs_jobs',
      help: 'Jobs in the cache by phase',
      labelNames: ['phase'],
      registers: r,
    }),
    queueWait: new Histogram({
      name: 'genjobs_job_queue_wait_seconds',
      help: 'Time from submit to processing',
      labelNames: ['model'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600],
      registers: r,
    }),
    runTime: new Histogram({
      name: 'genjobs_job_run_seconds',
      help: 'Time from processing to a terminal phase',
      labelNames: ['model', 'phase'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 240, 600, 1800],
      registers: r,
    }),
    reconcileDuration: new Histogram({
      name: 'genjobs_reconcile_duration_seconds',
      help: 'Reconcile duration by kind',
      labelNames: ['kind'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: r,
    }),
    reconcileErrors: new Counter({
      name: 'genjobs_reconcile_errors_total',
      help: 'Failed reconciles by kind',
      labelNames: ['kind'],
      registers: r,
    }),
    queueDepth: new Gauge({
      name: 'genjobs_workqueue_depth',
      help: 'Keys waiting in the work queue',
      labelNames: ['kind'],
      registers: r,
    }),
    webhookDeliveries: new Counter({
      name: 'genjobs_webhook_deliveries_total',
      help: 'Webhook delivery attempts by result',
      labelNames: ['result'],
      registers: r,
    }),
    webhooksGivenUp: new Counter({
      name: 'genjobs_webhooks_given_up_total',
      help: "Webhooks given up on (no more attempts), by the last attempt's result: the notification is lost",
      labelNames: ['result'],
      registers: r,
    }),
    webhooksPending: new Gauge({
      name: 'genjobs_webhook_retries_pending',
      help: 'Webhooks waiting for a retry',
      registers: r,
    }),
    creditsCharged: new Counter({
      name: 'genjobs_credits_charged_microcents_total',
      help: 'Micro-cents reserved at submit',
      registers: r,
    }),
    creditsRefunded: new Counter({
      name: 'genjobs_credits_refunded_microcents_total',
      help: 'Micro-cents given back for failed or cancelled jobs',
      registers: r,
    }),
    catalogReloads: new Counter({
      name: 'genjobs_catalog_reloads_total',
      help: 'Catalog reloads by result',
      labelNames: ['result'],
      registers: r,
    }),
    catalogModels: new Gauge({
      name: 'genjobs_catalog_models',
      help: 'Model variants in the serving catalog',
      registers: r,
    }),
    ledgerBatch: new Histogram({
      name: 'genjobs_ledger_batch_size',
      help: 'Ledger operations committed per Account write',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: r,
    }),
    // A count, not an amount per account: accounts are never a label (the account and its
    // amount are in its Ready condition, its Warning Event and the error line). Alert on > 0.
    ledgerImbalancedAccounts: new Gauge({
      name: 'genjobs_ledger_imbalanced_accounts',
      help: 'Accounts whose ledger does not balance (balance + held + spent is not the applied grant)',
      registers: r,
    }),
    leader: new Gauge({
      name: 'genjobs_controller_leader',
      help: '1 while this controller replica leads',
      registers: r,
    }),
    // --- job history (archive) ---
    archived: new Counter({
      name: 'genjobs_archived_total',
      help: 'Writes of finished jobs and expired uploads to the archive (one written again, changed since or after a restart, counts again)',
      labelNames: ['kind'],
      registers: r,
    }),
    archiveLag: new Gauge({
      name: 'genjobs_archive_lag_seconds',
      help: 'Seconds since the oldest finished job not archived yet became due: its end, or its webhook delivery (0: none)',
      registers: r,
    }),
    archiveErrors: new Counter({
      name: 'genjobs_archive_errors_total',
      help: 'Archive operations that failed (PostgreSQL down or refusing); they are retried',
      labelNames: ['op'],
      registers: r,
    }),
    retentionDeleted: new Counter({
      name: 'genjobs_archive_retention_deleted_total',
      help: 'Archived rows (with their files) deleted because their retention passed',
      labelNames: ['kind'],
      registers: r,
    }),
    // --- end job history ---
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
