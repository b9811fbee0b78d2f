import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { applyCrds, ensureNamespace, readCrds } from '../../src/k8s/crds.ts';
import { CustomResources } from '../../src/k8s/resources.ts';
import type { Account } from '../../src/k8s/types.ts';
import { eventually } from '../support/cluster.ts';

// This file kills its own etcd and kube-apiserver, so it runs its own control plane.
let cp: ControlPlane;
let dir: string;
let kube: Kube;
const restarted: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-supervise-'));
  await chmod(dir, 0o755); // as a folder made by hand would be: the control plane closes it
  cp = await ControlPlane.start({ dir, supervise: true, onRestart: (part) => restarted.push(part) });
  kube = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), 'supervise', { requestMs: 5_000, listMs: 5_000 });
  await applyCrds(kube, await readCrds(join(REPO_ROOT, 'crds')));
  await ensureNamespace(kube, 'supervise');
});

afterAll(async () => {
  await cp?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a supervised control plane (dev mode)', () => {
  it("runs each part in a process group of its own: a terminal's Ctrl-C reaches dev mode alone", async () => {
    // /proc/<pid>/stat: field 5 is the process group (after the parenthesised name).
    const group = async (pid: number) =>
      Number((await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[2]);
    const mine = await group(process.pid);
    for (const pid of [cp.pids.etcd!, cp.pids.apiServer!]) {
      expect(await group(pid)).toBe(pid);
      expect(pid).not.toBe(mine);
    }
  });

  it('keeps its admin credentials to its owner: the kubeconfig (a system:masters token) 0600, its folder 0700', async () => {
    expect((await stat(cp.kubeconfigPath)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('brings back a SIGKILLed kube-apiserver, then a SIGKILLed etcd, with the data kept', async () => {
    const accounts = new CustomResources<Account>(kube, 'Account');
    await accounts.create({ metadata: { name: 'before' }, spec: { plan: 'free', grantedMicroCents: 1 } });

    const apiServer = cp.pids.apiServer!;
    process.kill(apiServer, 'SIGKILL');
    await eventually(() => restarted.includes('kube-apiserver'), 60_000, 'kube-apiserver restarted');
    expect(cp.pids.apiServer).not.toBe(apiServer);
    expect((await accounts.get('before'))?.spec.grantedMicroCents).toBe(1);

    const etcd = cp.pids.etcd!;
    process.kill(etcd, 'SIGKILL');
    await eventually(() => restarted.includes('etcd'), 60_000, 'etcd restarted');
    expect(cp.pids.etcd).not.toBe(etcd);
    await eventually(
      () => accounts.create({ metadata: { name: 'after' }, spec: { plan: 'free', grantedMicroCents: 2 } }),
      30_000,
      'a write after etcd came back',
    );
    expect((await accounts.get('before'))?.spec.grantedMicroCents).toBe(1);
  });
});
