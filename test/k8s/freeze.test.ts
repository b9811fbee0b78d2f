import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountAdmin } from '../../src/accounts/admin.ts';
import { type RunningApi, startApi } from '../../src/api/main.ts';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import { kubeDeadlines, loadConfig } from '../../src/config.ts';
import { type RunningController, startController } from '../../src/controller/main.ts';
import { ControlPlane, freePort, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';
import { applyCrds, ensureNamespace, readCrds } from '../../src/k8s/crds.ts';
import { resources } from '../../src/k8s/resources.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { silentLogger } from '../../src/log.ts';
import { eventually } from '../support/cluster.ts';

// This file stops its kube-apiserver with SIGSTOP, so it runs its own control plane.
const NS = 'freeze';
const DEADLINE_MS = 2_000;
const IMAGE = 'genjobs/reference-image/text-to-image';

let cp: ControlPlane;
let dir: string;
let admin: Kube;
let api: RunningApi;
/** A second api replica no client calls: its readiness follows the apiserver by its probe alone. */
let idle: RunningApi;
let controller: RunningController;
let key: string;

const apiserverPid = () => {
  const pid = cp.pids.apiServer;
  if (!pid) throw new Error('no kube-apiserver');
  return pid;
};
const freeze = () => process.kill(apiserverPid(), 'SIGSTOP');
const thaw = () => process.kill(apiserverPid(), 'SIGCONT');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-freeze-'));
  cp = await ControlPlane.start({ dir });
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    GENJOBS_CONTROLLER_PORT: '0',
    GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
    GENJOBS_BLOB_DIR: join(dir, 'blobs'),
    GENJOBS_BLOB_SECRET: randomBytes(24).toString('hex'),
    GENJOBS_LEADER_ELECTION: 'false',
    GENJOBS_KUBE_TIMEOUT: `${DEADLINE_MS}ms`,
    GENJOBS_KUBE_PROBE_INTERVAL: '500ms',
    // Credit leases close soon after their term (the grace outlasts a deadline), so the test
    // sees what each frozen or retried call drew come back, counted.
    GENJOBS_LEASE_TERM: '1s',
    GENJOBS_LEASE_GRACE: '3s',
  });
  // The test's own connection waits as long as it must; the service's has the short deadline.
  admin = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), NS);
  await applyCrds(admin, await readCrds(join(REPO_ROOT, 'crds')));
  await ensureNamespace(admin, NS);
  await applyConfigMap(admin, await defaultCatalogConfigMap());
  const accounts = new AccountAdmin(resources(admin));
  await accounts.createAccount({ name: 'acme', plan: 'pro', grantMicroCents: 10_000_000 });
  key = (await accounts.createKey('acme', ['submit_job', 'check_status'])).key;
  const kube = fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), NS, kubeDeadlines(config));
  api = await startApi({ config, kube, log: silentLogger() });
  controller = await startController({ config, kube, log: silentLogger() });
  const idlePort = await freePort();
  idle = await startApi({
    config: { ...config, PORT: idlePort, GENJOBS_PUBLIC_URL: `http://127.0.0.1:${idlePort}` },
    kube: fromKubeConfig(loadKubeConfig(cp.kubeconfigPath), NS, kubeDeadlines(config)),
    log: silentLogger(),
  });
  await eventually(async () => (await fetch(`${api.url}/readyz`)).ok, 20_000, 'api ready');
  await eventually(async () => (await fetch(`${idle.url}/readyz`)).ok, 20_000, 'idle api ready');
});

afterAll(async () => {
  if (cp?.pids.apiServer) thaw();
  await controller?.stop();
  await idle?.stop();
  await api?.stop();
  await cp?.stop();
  await rm(dir, { recursive: true, force: true });
});

const submit = (idempotencyKey?: string) =>
  fetch(`${api.url}/v1/jobs/submit`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: JSON.stringify({ model: IMAGE, input: { prompt: 'a lighthouse' } }),
    signal: AbortSignal.timeout(10_000),
  });
const status = async (url: string) => (await fetch(`${url}/readyz`)).status;

describe('a frozen kube-apiserver', () => {
  it('gets a retryable 503 with Retry-After within the deadline, not ready, then recovery without drift', async () => {
    freeze();
    try {
      const started = Date.now();
      const res = await submit('freeze-1');
      const elapsed = Date.now() - started;
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await res.json()) as { detail: string };
      // Its Idempotency-Key's job could not be looked up, so nothing was queued: the spec's
      // code for a submit to retry (4.1), not the 503 of a create whose outcome is unknown.
      expect(body).toMatchObject({ code: 'PUBSUB_PUBLISH_FAILED', retryable: true });
      expect(body.detail).toMatch(/nothing was charged/);
      // One deadline for the parallel job and reservation writes (and a refund would be one
      // more), with room for a busy machine; without a deadline this waits until SIGCONT.
      expect(elapsed).toBeLessThan(3 * DEADLINE_MS + 2_000);
      // Without a key: the credit lease it needs cannot be written, and nothing is queued either.
      // Its write needs a new connection (the timed-out call closed its own): opening one to a
      // frozen apiserver keeps to the deadline too (it took undici's 10 s connect timeout).
      const unkeyedAt = Date.now();
      const unkeyed = await submit();
      expect([unkeyed.status, ((await unkeyed.json()) as { code: string }).code]).toEqual([
        503,
        'PUBSUB_PUBLISH_FAILED',
      ]);
      expect(Date.now() - unkeyedAt).toBeLessThan(2 * DEADLINE_MS + 2_000);
      // Four at once with one key: they run one after another, and those behind the first are
      // told its 503 as it comes instead of each waiting out a deadline of its own (which put
      // the fourth answer three deadlines later).
      const burstAt = Date.now();
      const burst = await Promise.all(
        [1, 2, 3, 4].map(async () => {
          const r = await submit('freeze-burst');
          return [r.status, ((await r.json()) as { code: string }).code, Date.now() - burstAt] as const;
        }),
      );
      expect(burst.map(([s, code]) => [s, code])).toEqual(Array(4).fill([503, 'PUBSUB_PUBLISH_FAILED']));
      expect(Math.max(...burst.map(([, , ms]) => ms))).toBeLessThan(2 * DEADLINE_MS + 2_000);

      await eventually(async () => (await status(api.url)) === 503, 10_000, 'api /readyz 503');
      await eventually(async () => (await status(controller.url)) === 503, 10_000, 'controller /readyz 503');
      // A replica without traffic learns it from its probe, within a deadline and an interval.
      await eventually(async () => (await status(idle.url)) === 503, 10_000, 'idle api /readyz 503');
      const readyz = (await (await fetch(`${api.url}/readyz`)).json()) as { reason?: string };
      expect(readyz.reason).toMatch(/apiserver unreachable/);
    } finally {
      thaw();
    }

    await eventually(async () => (await status(api.url)) === 200, 20_000, 'api /readyz 200 again');
    await eventually(
      async () => (await status(controller.url)) === 200,
      20_000,
      'controller /readyz 200 again',
    );
    // The same key again: one job, charged once, whatever the frozen call left behind.
    const retried = await eventually(
      async () => {
        const r = await submit('freeze-1');
        return r.status === 200 ? ((await r.json()) as { jobId: string }) : undefined;
      },
      20_000,
      'the retried submit',
    );
    expect(retried).toMatchObject({ status: 'pending', costMicroCents: 134_000 });
    const again = (await (await submit('freeze-1')).json()) as { jobId: string };
    expect(again.jobId).toBe(retried.jobId);
    const { accounts, jobs } = resources(admin);
    const lease = (await jobs.get(retried.jobId))?.spec.lease;
    // Once the leases the frozen calls drew from are closed, only the job's money is held
    // (never run: no node here), and everything else any call drew is back in the balance.
    // It is held by its own reservation, or, when the lease it names held nothing but its
    // cost, by that lease, which stays open while the job waits (docs/money.md).
    const account = await eventually(
      async () => {
        const a = await accounts.get('acme');
        const open = Object.keys(a?.status?.leases ?? {});
        const reserved = a?.status?.reservations?.[retried.jobId] !== undefined;
        const only = (open.length === 0 && reserved) || (open.length === 1 && open[0] === lease);
        return only && a?.status?.heldMicroCents === 134_000 ? a : undefined;
      },
      30_000,
      'every other credit lease closed',
    );
    const st = account.status ?? {};
    expect(st.reservations?.[retried.jobId] ?? (lease ? st.leases?.[lease]?.amount : undefined)).toBe(
      134_000,
    );
    expect(Object.keys(st.reservations ?? {}).filter((id) => id !== retried.jobId)).toEqual([]);
    expect(st.balanceMicroCents).toBe(10_000_000 - 134_000);
    expect(imbalance(st)).toBe(0);
  });

  it('a create without a key that had no answer in time is a 503 not to send again as it is', async () => {
    // The first submit writes a credit lease with room for a few more; the next draws from it
    // in this process, so its create is sent to the apiserver, which then does not answer.
    expect((await submit()).status).toBe(200);
    freeze();
    try {
      const res = await submit();
      const body = (await res.json()) as { code: string; retryable: boolean; detail: string };
      // Its create may still land: a client that repeats what is retryable would make a second job.
      expect([res.status, body.code, body.retryable]).toEqual([503, 'UNAVAILABLE', false]);
      expect(body.detail).toMatch(/list your jobs before submitting it again/);
    } finally {
      thaw();
    }
    await eventually(async () => (await status(api.url)) === 200, 20_000, 'api /readyz 200 again');
  });
});
