import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { crInformer } from '../../src/k8s/cr-informer.ts';
import { applyCrds, ensureNamespace, readCrds } from '../../src/k8s/crds.ts';
import { Informer } from '../../src/k8s/informer.ts';
import { CustomResources, type ListOptions } from '../../src/k8s/resources.ts';
import type { Account } from '../../src/k8s/types.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually } from '../support/cluster.ts';

// This file restarts kube-apiserver, so it runs its own control plane rather than the shared one.
let cp: ControlPlane;
let dir: string;
let kube: Kube;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-informer-'));
  cp = await ControlPlane.start({ dir });
  kube = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), 'informer');
  await applyCrds(kube, await readCrds(join(REPO_ROOT, 'crds')));
  await ensureNamespace(kube, 'informer');
});

afterAll(async () => {
  await cp?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Informer', () => {
  it('survives an apiserver restart and delivers the changes made while it was down', async () => {
    const accounts = new CustomResources<Account>(kube, 'Account');
    await accounts.create({ metadata: { name: 'before' }, spec: { plan: 'free', grantedMicroCents: 1 } });
    const informer = new Informer<Account>(kube, {
      path: accounts.path,
      list: () => accounts.list(),
      log: silentLogger(),
      minBackoffMs: 100,
      maxBackoffMs: 1_000,
    });
    informer.addIndex('plan', (a) => [a.spec.plan]);
    const events: string[] = [];
    informer.on((type, obj) => events.push(`${type}:${obj.metadata.name}`));
    await informer.start();
    await informer.waitForSync();
    expect(informer.synced).toBe(true);
    expect(informer.get('before')?.spec.grantedMicroCents).toBe(1);

    await cp.stopApiServer();
    // Written straight to etcd's successor apiserver would be the same: the informer sees
    // nothing until the apiserver is back, then catches up from its last resourceVersion.
    await cp.startApiServer();
    await accounts.create({ metadata: { name: 'while-away' }, spec: { plan: 'pro', grantedMicroCents: 2 } });
    await accounts.patch('before', { spec: { grantedMicroCents: 10 } });

    await eventually(() => informer.get('while-away'), 20_000, 'the new account in the cache');
    await eventually(
      () => informer.get('before')?.spec.grantedMicroCents === 10,
      20_000,
      'the update in the cache',
    );
    expect(informer.byIndex('plan', 'pro').map((a) => a.metadata.name)).toEqual(['while-away']);
    expect(events).toContain('add:while-away');

    await accounts.delete('while-away');
    await eventually(() => informer.get('while-away') === undefined, 10_000, 'the delete');
    expect(informer.byIndex('plan', 'pro')).toEqual([]);
    await informer.stop();
  });

  it("caches objects without managedFields, and an update from the cache keeps the server's", async () => {
    const accounts = new CustomResources<Account>(kube, 'Account');
    await accounts.create({ metadata: { name: 'lean' }, spec: { plan: 'free', grantedMicroCents: 1 } });
    const managed = (a: Account | undefined) =>
      (a?.metadata as { managedFields?: unknown[] } | undefined)?.managedFields;
    expect(managed(await accounts.get('lean'))?.length).toBeGreaterThan(0);
    const informer = new Informer<Account>(kube, {
      path: accounts.path,
      list: () => accounts.list(),
      log: silentLogger(),
    });
    informer.addIndex('plan', (a) => [a.spec.plan]);
    await informer.start();
    await informer.waitForSync();
    expect(informer.get('lean')?.metadata).not.toHaveProperty('managedFields');
    expect(informer.countByIndex('plan', 'free')).toBeGreaterThan(0);

    // A change delivered by the watch is stripped too.
    await accounts.patch('lean', { spec: { grantedMicroCents: 5 } });
    await eventually(() => informer.get('lean')?.spec.grantedMicroCents === 5, 10_000, 'the watched update');
    const cached = informer.get('lean')!;
    expect(cached.metadata).not.toHaveProperty('managedFields');
    // Written back from the cache: the apiserver keeps its bookkeeping.
    const written = await accounts.update({ ...cached, spec: { ...cached.spec, grantedMicroCents: 6 } });
    expect(managed(written)?.length).toBeGreaterThan(0);
    await informer.stop();
  });

  it('watches from where its list ended: an object deleted just after the list leaves the cache', async () => {
    /** Accounts whose list is followed at once by the delete of one of them, before any watch. */
    class DeletedAfterList extends CustomResources<Account> {
      override async list(options?: ListOptions) {
        const page = await super.list(options);
        if (page.items.some((a) => a.metadata.name === 'short-lived')) await this.delete('short-lived');
        return page;
      }
    }
    const accounts = new DeletedAfterList(kube, 'Account');
    await accounts.create({
      metadata: { name: 'short-lived' },
      spec: { plan: 'free', grantedMicroCents: 1 },
    });
    const informer = crInformer(kube, accounts, silentLogger());
    await informer.start();
    await informer.waitForSync();
    // A watch started from "now" instead would never hear of the delete: a ghost in the
    // cache until the next full list, which a busy collection may never need. (Its watch
    // ends after 30 s; the wait here is shorter.)
    await eventually(
      () => informer.get('short-lived') === undefined,
      10_000,
      'the delete made after the list',
    );
    expect(informer.stats().resourceVersion).not.toBe('');
    await informer.stop();
  });
});
