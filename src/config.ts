import { z } from 'zod';
import { IDEMPOTENCY_WINDOW_MS } from './jobs/idempotency.ts';

/** Durations in configuration: a number of seconds or `<n>s|m|h|d`. Parsed to milliseconds. */
// Transformed fields use prefault: zod 4 hands a plain default out untransformed.
const duration = z
  .union([
    z.number().nonnegative(),
    z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d)?$/, 'a duration like 90s, 15m, 7d'),
  ])
  .transform((v) => {
    if (typeof v === 'number') return v * 1000;
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v)!;
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 's'] ?? 1000;
    return Math.round(Number(m[1]) * unit);
  });

/** A size in bytes: 262144, 256kb, 1mb (1024-based, as body-parser reads it). */
const size = z
  .string()
  .regex(/^\d+\s*(b|kb|mb)?$/i, 'a size like 256kb or 1mb')
  .transform((v) => {
    const m = /^(\d+)\s*(b|kb|mb)?$/i.exec(v)!;
    return Number(m[1]) * ({ kb: 1024, mb: 1024 * 1024 }[m[2]?.toLowerCase() ?? 'b'] ?? 1);
  });

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

/** `free=2,pro=20` → { free: 2, pro: 20 }: the maximum of concurrent jobs per plan. */
const plans = z
  .string()
  .regex(/^[a-z][a-z0-9-]*=\d+(,[a-z][a-z0-9-]*=\d+)*$/, 'plans like free=2,pro=20,enterprise=100')
  .transform((v) => Object.fromEntries(v.split(',').map((p) => [p.split('=')[0]!, Number(p.split('=')[1])])));

/**
 * An address paths are appended to (`<url>/files/…`): http or https, with no `?query` or
 * `#fragment`, which the paths would land in.
 */
const baseUrl = z
  .string()
  .url()
  .refine(
    (v) => /^https?:\/\//i.test(v) && !/[?#]/.test(v),
    'an http:// or https:// address without a ?query or #fragment (paths are appended to it)',
  );

/** The path of a base URL without its last slash: '' at the root, '/genjobs' under a prefix. */
export function publicBasePath(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, '');
}

/** A setting that holds JSON, checked against a schema (the chart passes maps and lists this way). */
function json<T extends z.ZodType>(schema: T, example: string) {
  return z.string().transform((v, ctx): z.infer<T> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: `not JSON; expected e.g. ${example}` });
      return z.NEVER;
    }
    const result = schema.safeParse(parsed);
    if (result.success) return result.data;
    ctx.addIssue({
      code: 'custom',
      message: `${result.error.issues[0]?.message ?? 'invalid'}; expected e.g. ${example}`,
    });
    return z.NEVER;
  });
}
const quantity = z.union([z.string(), z.number()]);
const jsonStringArray = json(z.array(z.string()), '["genjobs","worker"]');

/**
 * Every setting of every entrypoint, read from the environment once at start-up. Each has
 * a default that works in dev mode; bad values stop the process with a message naming the
 * variable.
 */
export const configSchema = z.object({
  /** Namespace the service works in; default: the kubeconfig context's, or the Pod's. */
  GENJOBS_NAMESPACE: z.string().optional(),
  /** Address and port the api listens on. */
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Port of the controller's /healthz, /readyz and /metrics. */
  GENJOBS_CONTROLLER_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** Base URL clients reach the api at; file and output URLs are built on it. */
  GENJOBS_PUBLIC_URL: baseUrl.default('http://127.0.0.1:8080'),
  /** Concurrent jobs allowed per plan. */
  GENJOBS_PLANS: plans.prefault('free=2,pro=20,enterprise=100'),
  /** A reservation whose job never appeared is refunded after this long. */
  GENJOBS_RESERVATION_GRACE: duration.prefault('5m'),
  // Credit leases (docs/money.md).
  /** How long an api replica draws from one credit lease before its remainder goes back. */
  GENJOBS_LEASE_TERM: duration.prefault('5s'),
  /**
   * A lease is counted and closed this long after its term: longer than any create naming
   * it can take to land (the apiserver's request timeout, 60 s) plus clock skew.
   */
  GENJOBS_LEASE_GRACE: duration.prefault('90s'),
  /**
   * A lease whose jobs have not all ended by then stays open, paying for them, up to this
   * long more; then each unfinished one gets a reservation of its own (charged when it ends).
   */
  GENJOBS_LEASE_HOLD: duration.prefault('10m'),
  /**
   * Charges and refunds of finished jobs wait up to this long to share one Account write
   * (refunds show in the balance this much later); 0 writes each at once.
   */
  GENJOBS_SETTLE_LINGER: duration.prefault('500ms'),
  /** Largest JSON request body, in bytes. */
  GENJOBS_BODY_LIMIT: size.prefault('256kb'),
  /** Finished jobs are deleted this long after they finish. */
  GENJOBS_JOB_TTL: duration.prefault('7d'),
  /** A job whose Pod cannot start within this long fails (unschedulable, image pull...). */
  GENJOBS_POD_START_TIMEOUT: duration.prefault('30m'),
  /** A job that finds no free slot of its model within this long fails. */
  GENJOBS_QUEUE_TIMEOUT: duration.prefault('24h'),
  /** First pause before retrying a job whose Pod was lost; doubles per attempt. */
  GENJOBS_RETRY_BASE: duration.prefault('5s'),
  /** Attempts of a job whose Pod was lost to the infrastructure (eviction, node loss). */
  GENJOBS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Image and command of worker Pods. */
  GENJOBS_WORKER_IMAGE: z.string().default('ghcr.io/genjobs/genjobs:latest'),
  GENJOBS_WORKER_COMMAND: jsonStringArray.prefault('["genjobs","worker"]'),
  /** PriorityClass of worker Pods (optional). */
  GENJOBS_WORKER_PRIORITY_CLASS: z.string().optional(),
  /** ServiceAccount of worker Pods (one without bindings; its token is never mounted). */
  GENJOBS_WORKER_SERVICE_ACCOUNT: z.string().optional(),
  /** Defaults for worker Pods; a model's runtime.pod in the catalog overrides them. */
  GENJOBS_WORKER_RESOURCES: json(
    z.strictObject({
      requests: z.record(z.string(), quantity).optional(),
      limits: z.record(z.string(), quantity).optional(),
    }),
    '{"requests":{"cpu":"500m"},"limits":{"memory":"1Gi"}}',
  ).prefault('{}'),
  GENJOBS_WORKER_NODE_SELECTOR: json(z.record(z.string(), z.string()), '{"pool":"gpu"}').prefault('{}'),
  GENJOBS_WORKER_TOLERATIONS: json(
    z.array(
      z.object({
        key: z.string().optional(),
        operator: z.enum(['Exists', 'Equal']).optional(),
        value: z.string().optional(),
        effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
        tolerationSeconds: z.number().int().optional(),
      }),
    ),
    '[{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]',
  ).prefault('[]'),
  /** Name of the coordination.k8s.io Lease the controller replicas elect a leader with. */
  GENJOBS_LEASE_NAME: z.string().min(1).max(253).default('genjobs-controller'),
  /**
   * Leader election timings (client-go's rules): a Lease not seen to change for the lease
   * duration may be taken; a leader that could not renew within the renew deadline stops
   * acting. The renew deadline must be shorter than the lease, the retry period shorter still.
   */
  GENJOBS_LEASE_DURATION: duration.prefault('15s'),
  GENJOBS_LEASE_RENEW_DEADLINE: duration.prefault('10s'),
  GENJOBS_LEASE_RETRY_PERIOD: duration.prefault('2s'),
  /**
   * Queued jobs of a model that a valid catalog stops listing wait this long for it to come
   * back before they fail with MODEL_UNAVAILABLE. (A catalog that is absent or invalid
   * fails nothing: the last good one stays in service.)
   */
  GENJOBS_CATALOG_REMOVAL_GRACE: duration.prefault('10m'),
  /** Controller reconcile workers. */
  GENJOBS_CONTROLLER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Leader election: off only for a single controller replica in dev and tests. */
  GENJOBS_LEADER_ELECTION: bool.prefault(true),
  /** Identity for leader election; default: hostname and a random suffix. */
  POD_NAME: z.string().optional(),
  /** Webhook targets on private, loopback or link-local addresses (tests, private deployments). */
  GENJOBS_WEBHOOK_ALLOW_PRIVATE: bool.prefault(false),
  /**
   * Job input URLs (input images) on private, loopback or link-local addresses; the
   * service's own file URLs are always allowed. Off: a job cannot read the cluster's inside.
   */
  GENJOBS_WORKER_ALLOW_PRIVATE_INPUTS: bool.prefault(false),
  /** Webhook deliveries in flight at once (each may wait up to 15 s for its receiver); one account holds a quarter of them at most. */
  GENJOBS_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /**
   * Namespace of the per-account webhook signing Secrets (genjobs-webhook-<account>);
   * default: the service's. A namespace holding only them lets RBAC keep the controller
   * away from every other Secret.
   */
  GENJOBS_WEBHOOK_SECRET_NAMESPACE: z.string().optional(),
  /** Blob store. */
  GENJOBS_BLOB_TYPE: z.enum(['filesystem', 's3']).default('filesystem'),
  GENJOBS_BLOB_DIR: z.string().default('/var/lib/genjobs/blobs'),
  /** HMAC secret of signed upload URLs and worker grants, shared by the api and the controller. */
  GENJOBS_BLOB_SECRET: z.string().min(32).optional(),
  /** Former secrets still accepted during a rotation, comma-separated. */
  GENJOBS_BLOB_PREVIOUS_SECRETS: z.string().optional(),
  /** Public base of file URLs; default: <GENJOBS_PUBLIC_URL>/files (filesystem), required for s3. */
  GENJOBS_BLOB_PUBLIC_URL: baseUrl.optional(),
  /** Where worker Pods reach the api's /files to store outputs (in-cluster Service URL). */
  GENJOBS_BLOB_INTERNAL_URL: baseUrl.optional(),
  GENJOBS_S3_BUCKET: z.string().optional(),
  GENJOBS_S3_REGION: z.string().default('us-east-1'),
  GENJOBS_S3_ENDPOINT: z.string().url().optional(),
  GENJOBS_S3_FORCE_PATH_STYLE: bool.prefault(false),
  // Per-tenant limits (docs/limits.md; chart values under `limits:`). 0 turns one off.
  /** Requests per second per account in each api process (token bucket), and its burst. */
  GENJOBS_RATE_LIMIT_RPS: z.coerce.number().nonnegative().default(20),
  GENJOBS_RATE_LIMIT_BURST: z.coerce.number().int().nonnegative().default(40),
  /** Unfinished jobs (pending or processing, reserved or not) an account may have at once. */
  GENJOBS_MAX_LIVE_JOBS: z.coerce.number().int().nonnegative().default(200),
  /** Live (unexpired) uploads an account may have at once. */
  GENJOBS_MAX_LIVE_UPLOADS: z.coerce.number().int().nonnegative().default(100),
  /** Bytes an account's live uploads may hold (an open PUT counts its type's maximum). */
  GENJOBS_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(2 * 1024 ** 3),
  /** Event streams (GET /v1/jobs/{id}/events) an account may hold open at once, in each api process. */
  GENJOBS_MAX_EVENT_STREAMS: z.coerce.number().int().nonnegative().default(100),
  /**
   * A cancelled job's resource is deleted this long after it was cancelled and refunded (archive
   * off; with the archive on, every finished job leaves after GENJOBS_KEEP_FINISHED, archived).
   */
  GENJOBS_CANCELLED_JOB_TTL: duration.prefault('5m'),
  /** An expired Upload's resource is deleted this long after it expired (GET answers `expired` meanwhile). */
  GENJOBS_UPLOAD_EXPIRED_RETENTION: duration.prefault('15m'),
  // --- Job history (archive) ---
  /**
   * Where finished jobs go: `postgres` (GENJOBS_ARCHIVE_URL), `pglite` (embedded, in
   * GENJOBS_ARCHIVE_DIR; dev mode) or `off` (jobs stay resources until GENJOBS_JOB_TTL).
   */
  GENJOBS_ARCHIVE: z.enum(['off', 'postgres', 'pglite']).default('off'),
  /** PostgreSQL (>= 14) connection string of the archive; `?sslmode=require` for TLS. */
  GENJOBS_ARCHIVE_URL: z.string().optional(),
  /** PEM file of the CA the archive server's certificate is verified against (turns TLS on). */
  GENJOBS_ARCHIVE_TLS_CA_FILE: z.string().optional(),
  /** PGlite's data directory; default: in memory (lost at exit). */
  GENJOBS_ARCHIVE_DIR: z.string().optional(),
  /**
   * A finished, archived job stays a resource this long (so `kubectl get gj` shows what just
   * ended); with the archive on or off, a finished job's stopped worker Pod is kept as long (so
   * `kubectl logs` shows what its worker did), unless its job goes first.
   */
  GENJOBS_KEEP_FINISHED: duration.prefault('10m'),
  /**
   * Archived jobs and their output files (and expired uploads' records) are deleted this long
   * after. At least 24 h: a job deleted sooner could not answer a replay of its
   * Idempotency-Key, and the key would make (and charge) a new job under the same id.
   */
  GENJOBS_RETENTION: duration
    .refine(
      (ms) => ms >= IDEMPOTENCY_WINDOW_MS,
      'at least 24h: an Idempotency-Key replays its job for 24 h, so a job must be kept that long',
    )
    .prefault('30d'),
  /** Rows (and their files) deleted per retention pass: bounded, so a backlog never stalls the archiver. */
  GENJOBS_RETENTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  // --- end job history ---
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  // --- Apiserver calls (issue 13: a frozen apiserver must not hang requests) ---
  /**
   * Deadline of one apiserver call (a read of one object, any write). A request that
   * needs the apiserver answers 503 UNAVAILABLE with Retry-After once it passes.
   */
  GENJOBS_KUBE_TIMEOUT: duration.prefault('5s'),
  /** Deadline of a read of a whole collection (an informer's initial list may be large). */
  GENJOBS_KUBE_LIST_TIMEOUT: duration.prefault('60s'),
  /** An idle process checks the apiserver this often, so /readyz follows it. */
  GENJOBS_KUBE_PROBE_INTERVAL: duration.prefault('2s'),
});

/** The apiserver call deadlines of a configuration, in the shape src/k8s expects. */
export function kubeDeadlines(c: Config) {
  return { requestMs: c.GENJOBS_KUBE_TIMEOUT, listMs: c.GENJOBS_KUBE_LIST_TIMEOUT };
}

export type Config = z.infer<typeof configSchema>;

/** Parses the environment; throws one error listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The blob store's part of the configuration, in the shape src/blob expects. */
export function blobSettings(c: Config) {
  if (!c.GENJOBS_BLOB_SECRET)
    throw new ConfigError('invalid configuration:\n  GENJOBS_BLOB_SECRET: required (at least 32 characters)');
  return {
    type: c.GENJOBS_BLOB_TYPE,
    dir: c.GENJOBS_BLOB_DIR,
    publicBaseUrl:
      c.GENJOBS_BLOB_PUBLIC_URL ??
      (c.GENJOBS_BLOB_TYPE === 'filesystem' ? `${c.GENJOBS_PUBLIC_URL.replace(/\/$/, '')}/files` : undefined),
    signingSecret: c.GENJOBS_BLOB_SECRET,
    previousSigningSecrets: (c.GENJOBS_BLOB_PREVIOUS_SECRETS ?? '').split(',').filter(Boolean),
    ...(c.GENJOBS_BLOB_TYPE === 's3'
      ? {
          s3: {
            bucket: c.GENJOBS_S3_BUCKET ?? '',
            region: c.GENJOBS_S3_REGION,
            endpoint: c.GENJOBS_S3_ENDPOINT,
            forcePathStyle: c.GENJOBS_S3_FORCE_PATH_STYLE,
          },
        }
      : {}),
  };
}
