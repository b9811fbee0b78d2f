import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { AccountAdmin } from '../accounts/admin.ts';
import { WebhookSecrets } from '../accounts/webhook-secret.ts';
import { INSTALL_CONFIGMAP } from '../admin/cli.ts';
import { startApi } from '../api/main.ts';
import { ArchiveClaimedError } from '../archive/claim.ts';
import { openArchive } from '../archive/open.ts';
import { defaultCatalogConfigMap } from '../catalog/install.ts';
import { ConfigError, kubeDeadlines, loadConfig } from '../config.ts';
import { startController } from '../controller/main.ts';
import { fromKubeConfig, loadKubeConfig } from '../k8s/client.ts';
import { applyConfigMap, createConfigMapIfMissing } from '../k8s/configmaps.ts';
import { applyCrds, ensureNamespace, readCrds } from '../k8s/crds.ts';
import { resources } from '../k8s/resources.ts';
import { createLogger } from '../log.ts';
import { ControlPlane, REPO_ROOT } from './controlplane.ts';
import { devDir } from './dir.ts';
import { assertPortFree, lockDevDir } from './guard.ts';
import { genjobsCommandMap, NodeAgent } from './nodeagent.ts';
import { ownDir } from './process.ts';

const NAMESPACE = 'genjobs';
const DEMO_ACCOUNT = 'demo';

/**
 * `genjobs dev`: the whole service on this machine, no cluster needed. A local control
 * plane (etcd, kube-apiserver) keeps its data in $GENJOBS_DEV_DIR, so a restart continues
 * where it stopped; the api listens on 127.0.0.1:$PORT. Ctrl-C stops everything.
 */
export async function devMain(): Promise<void> {
  const dir = devDir();
  await ownDir(dir);
  const log = createLogger('dev');
  const port = process.env.PORT ?? '8080';
  const unlock = await lockDevDir(dir, (pid) =>
    log.info({ dir, pid }, `the genjobs dev that held this dev dir (pid ${pid}) is gone; taking it over`),
  );
  try {
    await assertPortFree('127.0.0.1', Number(port));
  } catch (err) {
    await unlock();
    throw err;
  }
  const blobSecretFile = join(dir, 'blob-secret');
  if (!existsSync(blobSecretFile))
    await writeFile(blobSecretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: port,
    GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
    GENJOBS_BLOB_DIR: join(dir, 'blobs'),
    GENJOBS_BLOB_SECRET: (await readFile(blobSecretFile, 'utf8')).trim(),
    GENJOBS_LEADER_ELECTION: 'false',
    GENJOBS_WEBHOOK_ALLOW_PRIVATE: 'true',
    GENJOBS_WORKER_ALLOW_PRIVATE_INPUTS: 'true',
    // One developer's one key: a request rate limit would only get in the way of load tests.
    GENJOBS_RATE_LIMIT_RPS: '0',
    // The job history embedded (PGlite): nothing to install.
    GENJOBS_ARCHIVE: 'pglite',
    GENJOBS_ARCHIVE_DIR: join(dir, 'archive'),
    // Any free port (printed below): two dev instances on one machine do not collide.
    GENJOBS_CONTROLLER_PORT: '0',
    ...process.env,
  });

  log.info({ dir }, 'starting the local control plane');
  // A killed etcd or kube-apiserver comes back on its own; the service rides it out.
  const cp = await ControlPlane.start({
    dir: join(dir, 'cluster'),
    supervise: true,
    onRestart: (part, awayMs) => log.warn({ part, awayMs }, 'restarted a control plane process that exited'),
  });
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, cp.kubeconfig(NAMESPACE), { mode: 0o600 });
  const kube = fromKubeConfig(loadKubeConfig(kubeconfig), NAMESPACE, kubeDeadlines(config));
  await applyCrds(kube, await readCrds(join(REPO_ROOT, 'crds')));
  await ensureNamespace(kube, NAMESPACE);
  // Installed once: a catalog edited here (a price, a paused variant) stays edited across
  // restarts, as a cluster's ConfigMaps do.
  const shipped = await defaultCatalogConfigMap();
  const kept = await createConfigMapIfMissing(kube, shipped);
  if (kept && !isDeepStrictEqual(kept.data, shipped.data)) {
    log.info(
      { configMap: shipped.metadata?.name },
      `the default catalog here differs from the shipped one and is kept; to get the shipped one: KUBECONFIG=${join(dir, 'kubeconfig')} kubectl delete configmap ${shipped.metadata?.name}, then restart`,
    );
  }
  // What the admin commands read of an install, as the chart's ConfigMap says it: the plans
  // `accounts create` may give, and that webhook Secrets are kept in this namespace.
  await applyConfigMap(kube, {
    metadata: { name: INSTALL_CONFIGMAP },
    data: {
      plans: Object.entries(config.GENJOBS_PLANS)
        .map(([plan, max]) => `${plan}=${max}`)
        .join(','),
      webhookSecretNamespace: NAMESPACE,
    },
  });
  const { keyFile, webhookSecretFile } = await ensureDemoAccount(
    new AccountAdmin(resources(kube), () => kube.clock.now()),
    new WebhookSecrets({ kube, namespace: NAMESPACE }),
    dir,
  );

  // One archive for both parts: PGlite is one process's database.
  const archive = await openArchive(config, log, kube.namespace);
  const stops: Array<() => Promise<void>> = [() => cp.stop(), async () => archive?.close(), unlock];
  const stopAll = async () => {
    for (const stop of stops) await stop().catch((err) => log.warn({ err: String(err) }, 'stop failed'));
  };
  // A database another install claimed is refused here, in one line, rather than in a
  // warning that scrolls past the banner with every archived read failing after it. One
  // that is down is not: archiving waits for it, as in a cluster.
  const claimed = await archive?.ready().then(
    () => undefined,
    (err: unknown) =>
      err instanceof Error && err.cause instanceof ArchiveClaimedError ? err.cause : undefined,
  );
  if (claimed) {
    await stopAll();
    // The embedded archive has no client to delete a claim with: here the other install is
    // this dev dir under another blob signing secret (a restored copy of part of it).
    throw new ConfigError(
      config.GENJOBS_ARCHIVE === 'pglite'
        ? `the job history in ${config.GENJOBS_ARCHIVE_DIR ?? join(dir, 'archive')} was made under another blob signing secret than ${blobSecretFile}: put back the blob-secret of the same copy of the dev dir as the archive, or move the archive directory away to start a new history`
        : `${claimed.message} (GENJOBS_ARCHIVE_URL)`,
    );
  }
  const api = await startApi({ config, kube, log: log.child({ service: 'api' }), archive });
  stops.unshift(() => api.stop());
  // The user commands (genjobs run, jobs, …) find the api here when GENJOBS_URL is unset.
  await writeFile(join(dir, 'api-url'), `${api.url}\n`);
  const controller = await startController({
    config: {
      ...config,
      GENJOBS_BLOB_INTERNAL_URL: `${api.url}/files`,
    },
    kube,
    log: log.child({ service: 'controller' }),
    archive,
  });
  stops.unshift(() => controller.stop());
  // No kubelet here: the node agent runs worker Pods as local `genjobs worker` processes.
  const agent = new NodeAgent(kube, {
    log: log.child({ service: 'node-agent' }),
    commandMap: genjobsCommandMap(),
    logDir: join(dir, 'pod-logs'),
  });
  await agent.start();
  stops.unshift(() => agent.stop());

  console.log(`
genjobs is running.
  API:         ${api.url}
  Controller:  ${controller.url}/metrics
  Worker Pods: ${agent.slots} at a time (GENJOBS_DEV_SLOTS); their logs in ${join(dir, 'pod-logs')}
  API key:     ${keyFile}  (account "${DEMO_ACCOUNT}", all scopes)
  Webhooks:    signed with the secret in ${webhookSecretFile}  (receivers on this machine: README, "Webhooks")
  kubectl:     KUBECONFIG=${kubeconfig} kubectl get genjobs
  History:     ${config.GENJOBS_ARCHIVE === 'pglite' ? `embedded PostgreSQL (PGlite) in ${config.GENJOBS_ARCHIVE_DIR}` : config.GENJOBS_ARCHIVE}
  Try:         curl -s ${api.url}/v1/catalog/models
Press Ctrl-C to stop; state is kept in ${dir}.
`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log.info('stopping');
  await stopAll();
}

/**
 * The demo account ($100 on plan pro), a key with every scope (written once to a file), and
 * the account's webhook signing secret, written to a file at every start (an admin may have
 * rotated it meanwhile).
 */
async function ensureDemoAccount(
  admin: AccountAdmin,
  secrets: WebhookSecrets,
  dir: string,
): Promise<{ keyFile: string; webhookSecretFile: string }> {
  const keyFile = join(dir, 'api-key');
  const found = await admin.getAccount(DEMO_ACCOUNT).catch(() => undefined);
  const account =
    found ?? (await admin.createAccount({ name: DEMO_ACCOUNT, plan: 'pro', grantMicroCents: 100_000_000 }));
  if (!existsSync(keyFile) || !found) {
    const { key } = await admin.createKey(DEMO_ACCOUNT, ['submit_job', 'check_status', 'list_models']);
    await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
  }
  const secret = await secrets.ensure(DEMO_ACCOUNT, { name: DEMO_ACCOUNT, uid: account.metadata.uid });
  const webhookSecretFile = join(dir, 'webhook-secret');
  await writeFile(webhookSecretFile, `${secret.current}\n`, { mode: 0o600 });
  return { keyFile, webhookSecretFile };
}
