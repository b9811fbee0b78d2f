import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AccountAdmin } from '../../src/accounts/admin.ts';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import { freePort } from '../../src/dev/controlplane.ts';
import type { Kube } from '../../src/k8s/client.ts';
import { applyConfigMap, type ConfigMap } from '../../src/k8s/configmaps.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';
import { benchCatalogConfigMap } from './catalogs.ts';
import type { BenchCluster } from './cluster.ts';
import { ApiClient } from './http.ts';
import { type ServiceProcess, startService } from './procs.ts';
import { waitFor } from './stats.ts';
import { WriteMeter } from './writes.ts';

/** What every scenario gets: the mode, the cluster, where to put files, and shared figures. */
export interface BenchContext {
  quick: boolean;
  cluster: BenchCluster;
  /** The run's temp dir (control plane, logs, blobs). */
  dir: string;
  meter: WriteMeter;
  /** Figures one scenario hands to a later one (the raw write rate for the write-bound limit). */
  shared: {
    rawCreatePerSecondC64?: number;
    e2eJobsPerSecond?: number;
    e2eWorkWritesPerJob?: number;
  };
  progress(message: string): void;
}

/** Plans of the benchmark's accounts: `bench` never limits concurrency. */
export const BENCH_PLANS = 'free=2,pro=20,enterprise=100,bench=1000000';
/** More credit than any run spends (134,000 micro-cents a job). */
const GRANT = 1_000_000_000_000_000;

/**
 * The worker command of the end-to-end and peer runs: a process that reports one output
 * at once, so the run measures the service's control path, not generation. `$(VAR)` would
 * be expanded by the node agent as a kubelet does; `$VAR` is left to the shell.
 */
export const INSTANT_WORKER_COMMAND = [
  'sh',
  '-c',
  // The output's URL under the job's own storage, as the controller requires; the job id is
  // cut out of GENJOBS_JOB by the shell itself (no process more than the printf).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
  'j=${GENJOBS_JOB#*\\"jobId\\":\\"}; j=${j%%\\"*}; printf \'{"ok":true,"outputs":[{"url":"%s/jobs/%s/o","type":"text"}]}\' "$GENJOBS_BLOB_PUBLIC_URL" "$j" > "$GENJOBS_TERMINATION_LOG"',
];

/** A namespace of the benchmark's cluster with the service's pieces around it. */
export class BenchNamespace {
  readonly name: string;
  readonly kube: Kube;
  readonly kubeconfig: string;
  readonly r: Resources;
  readonly admin: AccountAdmin;
  private readonly ctx: BenchContext;
  private readonly secret: string;

  private constructor(ctx: BenchContext, name: string, kube: Kube, kubeconfig: string, secret: string) {
    this.ctx = ctx;
    this.name = name;
    this.kube = kube;
    this.kubeconfig = kubeconfig;
    this.secret = secret;
    this.r = resources(kube);
    this.admin = new AccountAdmin(this.r);
  }

  /**
   * `secret`: the blob signing secret, which is also an install's identity to the job
   * archive (src/archive/claim.ts): namespaces that share one archive database share it, as
   * one install's replicas do; another one's is refused every use of the archive.
   */
  static async create(ctx: BenchContext, name: string, secret = newBlobSecret()): Promise<BenchNamespace> {
    const { kube, kubeconfig } = await ctx.cluster.namespace(name);
    return new BenchNamespace(ctx, name, kube, kubeconfig, secret);
  }

  /** The default catalog and the benchmark's variants (paused, instant). */
  async installBenchCatalog(): Promise<void> {
    await this.installCatalog([await defaultCatalogConfigMap(), benchCatalogConfigMap()]);
  }

  async installCatalog(configMaps: ConfigMap[]): Promise<void> {
    for (const cm of configMaps) await applyConfigMap(this.kube, cm);
  }

  /** An account on plan `bench` with plenty of credit, and a key with every scope. */
  async account(name: string): Promise<string> {
    await this.admin.createAccount({ name, plan: 'bench', grantMicroCents: GRANT });
    return (await this.admin.createKey(name, ['submit_job', 'check_status', 'list_models'])).key;
  }

  /** The environment of an api or controller process on this namespace. */
  private async env(extra: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
    const port = await freePort();
    const blobDir = join(this.ctx.dir, `blobs-${this.name}`);
    await mkdir(blobDir, { recursive: true });
    return {
      HOST: '127.0.0.1',
      PORT: String(port),
      GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GENJOBS_CONTROLLER_PORT: '0',
      GENJOBS_BLOB_DIR: blobDir,
      GENJOBS_BLOB_SECRET: this.secret,
      GENJOBS_PLANS: BENCH_PLANS,
      // One controller replica: no Lease renewals in the write counts.
      GENJOBS_LEADER_ELECTION: 'false',
      // The bench drives the service from a few accounts as fast as it goes: no per-tenant limits.
      GENJOBS_RATE_LIMIT_RPS: '0',
      GENJOBS_MAX_LIVE_JOBS: '0',
      GENJOBS_MAX_EVENT_STREAMS: '0',
      // Credit leases close this long after their term (90 s in production, for creates that
      // may still land): short here, so a run's leases are closed, and counted, within it.
      GENJOBS_LEASE_GRACE: '3s',
      GENJOBS_NAMESPACE: this.name,
      BENCH_KUBECONFIG: this.kubeconfig,
      BENCH_NAMESPACE: this.name,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      ...extra,
    };
  }

  private logFile(role: string): string {
    return join(this.ctx.dir, 'logs', `${this.name}-${role}.log`);
  }

  /** Starts the api and waits until it serves the catalog; returns it with a client. */
  async startApi(extra: NodeJS.ProcessEnv = {}): Promise<{ proc: ServiceProcess; client: ApiClient }> {
    const proc = await startService('api', await this.env(extra), this.logFile('api'));
    const client = new ApiClient(proc.url);
    await waitFor(
      'api serving the catalog',
      async () => (await client.call('GET', '/readyz').catch(() => undefined))?.status === 200,
      60_000,
    );
    return { proc, client };
  }

  /** The floor under any api (forwarder.ts) on this namespace, with a client. */
  async startForwarder(): Promise<{ proc: ServiceProcess; client: ApiClient }> {
    const proc = await startService('forwarder', await this.env({}), this.logFile('forwarder'));
    return { proc, client: new ApiClient(proc.url) };
  }

  async startController(extra: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    return startService('controller', await this.env(extra), this.logFile('controller'));
  }

  /** The dev node agent on this namespace, running Pods as local processes. */
  async startAgent(slots: number): Promise<ServiceProcess> {
    return startService(
      'agent',
      {
        BENCH_KUBECONFIG: this.kubeconfig,
        BENCH_NAMESPACE: this.name,
        BENCH_SLOTS: String(slots),
        BENCH_NODE: `node-${this.name}`,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      },
      this.logFile('agent'),
    );
  }
}

export async function makeContext(
  quick: boolean,
  cluster: BenchCluster,
  dir: string,
  progress: (m: string) => void,
): Promise<BenchContext> {
  await mkdir(join(dir, 'logs'), { recursive: true });
  return {
    quick,
    cluster,
    dir,
    meter: new WriteMeter(() => cluster.get('/metrics')),
    shared: {},
    progress,
  };
}

/** A blob signing secret for a namespace of its own (an install of its own). */
export function newBlobSecret(): string {
  return randomBytes(24).toString('hex');
}
