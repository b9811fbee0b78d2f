import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AccountAdmin } from '../../src/accounts/admin.ts';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import { ControlPlane, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { type KeptAlive, keepAlive } from '../../src/dev/process.ts';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';
import { applyCrds, ensureNamespace, readCrds } from '../../src/k8s/crds.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';

/** The parts the suite kills, one at a time or all at once. */
export const PARTS = ['api', 'controller', 'node-agent', 'kube-apiserver', 'etcd'] as const;
export type Part = (typeof PARTS)[number];

export const NAMESPACE = 'chaos';
/** Finished jobs stay resources this long, then only the archive has them (the default is 10 min). */
export const KEEP_FINISHED_MS = 10_000;
/** Dev-mode ports of this suite (18200 and up): the api, then the controller's health. */
export const API_PORT = 18201;
export const CONTROLLER_PORT = 18202;

export interface ChaosStack {
  dir: string;
  kube: Kube;
  r: Resources;
  /** The job history, as the api and the controller use it (the way genjobs runs by default). */
  archive: Archive;
  postgres: LocalPostgres;
  apiUrl: string;
  controllerUrl: string;
  /** Keys of the load's accounts, by account name. */
  keys: Record<string, string>;
  /** Where the node agent's log lines (every container start) go. */
  agentLog: string;
  pid(part: Part): number | undefined;
  /** Restarts seen so far, per part (the supervisors bring every killed part back). */
  restarts(): Record<Part, number>;
  stop(): Promise<void>;
}

export const ACCOUNTS = ['chaos-a', 'chaos-b'];
export const GRANT = 1_000_000_000;

/**
 * The whole service as separate processes on a control plane of its own, each part
 * supervised so that a killed one comes back: etcd and kube-apiserver by the ControlPlane,
 * the api, the controller and the node agent by {@link keepAlive}.
 */
export async function startChaosStack(dir: string, webhookCaFile: string): Promise<ChaosStack> {
  const restarts = { etcd: 0, 'kube-apiserver': 0 };
  const cp = await ControlPlane.start({
    dir: join(dir, 'cluster'),
    supervise: true,
    onRestart: (part) => {
      restarts[part]++;
    },
  });
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, cp.kubeconfig(NAMESPACE), { mode: 0o600 });
  // The suite's own reads may wait for a restarting apiserver: generous deadlines.
  const kube = fromKubeConfig(loadKubeConfig(kubeconfig), NAMESPACE, { requestMs: 15_000, listMs: 60_000 });
  await applyCrds(kube, await readCrds(join(REPO_ROOT, 'crds')));
  await ensureNamespace(kube, NAMESPACE);
  await applyConfigMap(kube, await defaultCatalogConfigMap());
  const r = resources(kube);
  const postgres = await LocalPostgres.start();
  const archive = new Archive(postgresClient({ connectionString: postgres.url }));
  const admin = new AccountAdmin(r);
  const keys: Record<string, string> = {};
  for (const name of ACCOUNTS) {
    await admin.createAccount({ name, plan: 'pro', grantMicroCents: GRANT });
    keys[name] = (await admin.createKey(name, ['submit_job', 'check_status', 'list_models'])).key;
  }

  const logs = join(dir, 'logs');
  await mkdir(logs, { recursive: true });
  const apiUrl = `http://127.0.0.1:${API_PORT}`;
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    GENJOBS_NAMESPACE: NAMESPACE,
    GENJOBS_PUBLIC_URL: apiUrl,
    GENJOBS_BLOB_DIR: join(dir, 'blobs'),
    GENJOBS_BLOB_SECRET: randomBytes(24).toString('hex'),
    GENJOBS_LEADER_ELECTION: 'false',
    GENJOBS_WEBHOOK_ALLOW_PRIVATE: 'true',
    GENJOBS_WORKER_ALLOW_PRIVATE_INPUTS: 'true',
    // Credit leases: short terms so unused credit returns within the run; a grace longer than
    // the freeze round (30 s) plus a request deadline, since a create sent just before the
    // freeze can land when the apiserver resumes and its lease must not be closed before that.
    GENJOBS_LEASE_TERM: '1s',
    GENJOBS_LEASE_GRACE: '45s',
    GENJOBS_RETRY_BASE: '1s',
    GENJOBS_KUBE_TIMEOUT: '3s',
    GENJOBS_ARCHIVE: 'postgres',
    GENJOBS_ARCHIVE_URL: postgres.url,
    GENJOBS_KEEP_FINISHED: `${KEEP_FINISHED_MS / 1000}s`,
    LOG_LEVEL: 'info',
  };
  const cli = join(REPO_ROOT, 'src', 'cli.ts');
  const node = process.execPath;
  const parts = {
    api: keepAlive('api', node, [cli, '--kubeconfig', kubeconfig, 'api'], {
      logFile: join(logs, 'api.log'),
      env: { ...env, PORT: String(API_PORT) },
    }),
    controller: keepAlive('controller', node, [cli, '--kubeconfig', kubeconfig, 'controller'], {
      logFile: join(logs, 'controller.log'),
      env: {
        ...env,
        GENJOBS_CONTROLLER_PORT: String(CONTROLLER_PORT),
        GENJOBS_BLOB_INTERNAL_URL: `${apiUrl}/files`,
        NODE_EXTRA_CA_CERTS: webhookCaFile,
      },
    }),
    'node-agent': keepAlive('node-agent', node, [join(REPO_ROOT, 'test', 'chaos', 'agent.ts')], {
      logFile: join(logs, 'node-agent.log'),
      env: { ...env, KUBECONFIG: kubeconfig, CHAOS_POD_LOGS: join(logs, 'pods'), GENJOBS_DEV_SLOTS: '4' },
    }),
  } satisfies Record<string, KeptAlive>;

  return {
    dir,
    kube,
    r,
    archive,
    postgres,
    apiUrl,
    controllerUrl: `http://127.0.0.1:${CONTROLLER_PORT}`,
    keys,
    agentLog: join(logs, 'node-agent.log'),
    pid(part) {
      switch (part) {
        case 'kube-apiserver':
          return cp.pids.apiServer;
        case 'etcd':
          return cp.pids.etcd;
        default:
          return parts[part].pid();
      }
    },
    restarts: () => ({
      ...restarts,
      api: parts.api.restarts,
      controller: parts.controller.restarts,
      'node-agent': parts['node-agent'].restarts,
    }),
    async stop() {
      for (const part of Object.values(parts)) await part.stop(5_000);
      await archive.close().catch(() => {});
      await postgres.stop();
      await cp.stop();
    },
  };
}
