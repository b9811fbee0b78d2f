import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { basename, join } from 'node:path';
import { ControlPlane, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { applyCrds, ensureNamespace, readCrds } from '../../src/k8s/crds.ts';
import { onCleanup } from './procs.ts';

/** The benchmark's own control plane (in its temp dir) and what scenarios need from it. */
export interface BenchCluster {
  cp: ControlPlane;
  dir: string;
  /** Kubernetes and etcd versions, for the machine description. */
  versions: { kubernetes: string; assets: string };
  /** An admin connection to a new namespace, and the path of a kubeconfig whose context uses it. */
  namespace(name: string): Promise<{ kube: Kube; kubeconfig: string }>;
  /** GET on the apiserver with the admin token (metrics, version). */
  get(path: string): Promise<string>;
}

export async function startCluster(dir: string): Promise<BenchCluster> {
  const cp = await ControlPlane.start({ dir: join(dir, 'cluster') });
  onCleanup('control plane', () => cp.stop());
  const get = (path: string) => adminGet(cp, path);
  const version = JSON.parse(await get('/version')) as { gitVersion?: string };
  const admin = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), 'default');
  await applyCrds(admin, await readCrds(join(REPO_ROOT, 'crds')));
  return {
    cp,
    dir,
    versions: { kubernetes: version.gitVersion ?? 'unknown', assets: basename(cp.assetsDir) },
    get,
    async namespace(name) {
      const kubeconfig = join(dir, `kubeconfig-${name}`);
      await writeFile(kubeconfig, cp.kubeconfig(name), { mode: 0o600 });
      const kube = fromKubeConfig(loadKubeConfig(kubeconfig), name);
      await ensureNamespace(kube, name);
      return { kube, kubeconfig };
    },
  };
}

function adminGet(cp: ControlPlane, path: string): Promise<string> {
  const url = new URL(path, cp.serverUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        ca: cp.caData,
        headers: { authorization: `Bearer ${cp.adminToken}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(body);
          else reject(new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 200)}`));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
