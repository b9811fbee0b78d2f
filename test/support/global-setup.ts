import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ControlPlane, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { fromKubeConfig, loadKubeConfig } from '../../src/k8s/client.ts';
import { applyCrds, readCrds } from '../../src/k8s/crds.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    controlPlaneDir: string;
  }
}

let cp: ControlPlane | undefined;
let dir = '';

/** One real control plane for the whole run; each test file works in its own namespace. */
export async function setup(project: TestProject): Promise<void> {
  // Against a deployed service (scripts/kind-e2e.sh): its cluster, not a local control plane.
  if (process.env.GENJOBS_E2E_BASE_URL) {
    const kubeconfig = process.env.KUBECONFIG;
    if (!kubeconfig)
      throw new Error('GENJOBS_E2E_BASE_URL needs KUBECONFIG pointing at the cluster that runs it');
    project.provide('kubeconfig', kubeconfig);
    project.provide('controlPlaneDir', '');
    return;
  }
  dir = await mkdtemp(join(tmpdir(), 'genjobs-test-'));
  const started = Date.now();
  cp = await ControlPlane.start({
    dir,
    // As on clusters that enable it (OpenShift, hardened distributions): an ownerReference
    // with blockOwnerDeletion needs the right to update the owner's finalizers, so the chart
    // RBAC tests catch a Role that lacks it.
    apiServerArgs: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
  });
  const kube = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath));
  await applyCrds(kube, await readCrds(join(REPO_ROOT, 'crds')));
  console.log(`control plane ready in ${Date.now() - started} ms at ${cp.serverUrl}`);
  project.provide('kubeconfig', cp.kubeconfigPath);
  project.provide('controlPlaneDir', dir);
}

export async function teardown(): Promise<void> {
  await cp?.stop();
  if (dir && !process.env.GENJOBS_KEEP_TEST_DIR) await rm(dir, { recursive: true, force: true });
}
