import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../../src/dev/controlplane.ts';
import type { AppError } from '../../src/errors.ts';
import type { GenerationJob } from '../../src/k8s/types.ts';
import { CreditLeases } from '../../src/ledger/credit-leases.ts';
import { leaseFit } from '../../src/ledger/fit.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { applyImageModel } from '../support/catalogs.ts';
import { eventually, kubeconfigPath } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

/**
 * Credit leases against the real apiserver: several api replicas on one account never
 * hold or spend more than was granted, a replica killed holding a lease loses nothing,
 * and refusals leave no job behind (docs/money.md).
 */
let s: TestStack;
let second: ChildProcess | undefined;
const GRACE_MS = 2_000;
const IMAGE = 'genjobs/reference-image/text-to-image';
const COST = 134_000;

beforeAll(async () => {
  s = await startTestStack('leases', {
    slots: 4,
    env: { GENJOBS_LEASE_TERM: '1s', GENJOBS_LEASE_GRACE: `${GRACE_MS}ms`, GENJOBS_RESERVATION_GRACE: '2s' },
  });
}, 120_000);
afterAll(async () => {
  second?.kill('SIGTERM');
  await s?.stop();
});

const account = async (name: string) => (await s.r.accounts.get(name))!;
const jobsOf = async (name: string) => (await s.r.jobs.listAll()).filter((j) => j.spec.account === name);
const settled = async (name: string) => {
  const st = (await account(name)).status ?? {};
  const jobs = await jobsOf(name);
  return (
    Object.keys(st.leases ?? {}).length === 0 &&
    jobs.every((j) => ['completed', 'failed', 'cancelled'].includes(j.status?.phase ?? '')) &&
    Object.keys(st.reservations ?? {}).length === 0
  );
};

/** A second api process on the same namespace, as another replica would be. */
async function startSecondApi(): Promise<string> {
  const port = await freePort();
  second = spawn(
    process.execPath,
    [`${REPO_ROOT}src/cli.ts`, 'api', '--kubeconfig', kubeconfigPath(), '-n', s.kube.namespace],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
        GENJOBS_BLOB_DIR: s.config.GENJOBS_BLOB_DIR,
        GENJOBS_BLOB_SECRET: s.config.GENJOBS_BLOB_SECRET,
        GENJOBS_LEASE_TERM: '1s',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok === true,
    30_000,
    'api 2',
  );
  return url;
}

describe('credit leases', () => {
  it('two api processes racing on one account never hold or spend more than was granted', async () => {
    const grant = COST * 12 + 50_000;
    const key = await s.account({ name: 'shared', plan: 'enterprise', grantMicroCents: grant });
    await eventually(
      async () => (await account('shared')).status?.balanceMicroCents === grant,
      5_000,
      'grant',
    );
    const other = await startSecondApi();
    const submit = (i: number) =>
      fetch(`${i % 2 ? other : s.api.url}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: IMAGE, input: { prompt: `race ${i}` } }),
      });
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => submit(i)));
    const codes = answers.map((a) => a.status);
    const accepted = codes.filter((c) => c === 200).length;
    expect(codes.filter((c) => c !== 200 && c !== 402)).toEqual([]);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(12);
    // Refusals come before the create: exactly the accepted jobs exist.
    const jobs = await jobsOf('shared');
    expect(jobs).toHaveLength(accepted);
    // Every job is paid for by the lease it names.
    const st = (await account('shared')).status!;
    expect(imbalance(st)).toBe(0);
    for (const [id, lease] of Object.entries(st.leases ?? {})) {
      const members = jobs.filter((j) => j.spec.lease === id);
      expect(leaseFit(lease.amount, members.map(member)).size).toBe(members.length);
    }

    // Money another replica leased comes back within seconds: the account ends exact.
    await eventually(() => settled('shared'), 60_000, 'leases closed and jobs finished');
    const after = (await account('shared')).status!;
    const completed = (await jobsOf('shared')).filter((j) => j.status?.phase === 'completed');
    expect(imbalance(after)).toBe(0);
    expect(after.spentMicroCents).toBe(completed.reduce((a, j) => a + j.spec.costMicroCents, 0));
    expect(after.spentMicroCents).toBeLessThanOrEqual(grant);
    expect(after.balanceMicroCents).toBe(grant - (after.spentMicroCents ?? 0));
  }, 120_000);

  it('one Idempotency-Key with two bodies at once: one job, run at its own price', async () => {
    const key = await s.account({ name: 'keyrace', plan: 'enterprise', grantMicroCents: 100_000_000 });
    const bodies = [
      { model: IMAGE, input: { prompt: 'cheap', resolution: '1k' } },
      { model: IMAGE, input: { prompt: 'dear', resolution: '2k' } },
    ];
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        [0, 1, 0, 1].map((b) =>
          s.call('/v1/jobs/submit', {
            method: 'POST',
            key,
            headers: { 'idempotency-key': `race-${round}` },
            json: bodies[b],
          }),
        ),
      );
      const ok = await Promise.all(answers.filter((a) => a.status === 200).map((a) => a.json()));
      expect(new Set(ok.map((o) => o.jobId)).size).toBe(1);
      for (const a of answers.filter((x) => x.status !== 200))
        expect((await a.json()).code).toBe('IDEMPOTENCY_KEY_REUSED');
      const job = (await s.r.jobs.get(ok[0].jobId))!;
      const priced = await (
        await s.call('/v1/jobs/estimate', {
          method: 'POST',
          key,
          json: { model: IMAGE, input: job.spec.input },
        })
      ).json();
      expect(job.spec.costMicroCents).toBe(priced.estimatedCostMicroCents);
      expect(ok.every((o) => o.costMicroCents === job.spec.costMicroCents)).toBe(true);
    }
    await eventually(() => settled('keyrace'), 60_000, 'settled');
    const completed = (await jobsOf('keyrace')).filter((j) => j.status?.phase === 'completed');
    const st = (await account('keyrace')).status!;
    expect(completed).toHaveLength(5);
    expect(st.spentMicroCents).toBe(completed.reduce((a, j) => a + j.spec.costMicroCents, 0));
    expect(imbalance(st)).toBe(0);
  }, 120_000);

  it('a replica killed holding a lease loses nothing: the lease is counted and closed from its jobs', async () => {
    await s.admin.createAccount({ name: 'killed', plan: 'pro', grantMicroCents: 10_000_000 });
    await eventually(
      async () => (await account('killed')).status?.balanceMicroCents === 10_000_000,
      5_000,
      'grant',
    );
    const script = `
      import { connect } from '${REPO_ROOT}src/k8s/client.ts';
      import { resources } from '${REPO_ROOT}src/k8s/resources.ts';
      import { Ledger } from '${REPO_ROOT}src/ledger/ledger.ts';
      import { CreditLeases } from '${REPO_ROOT}src/ledger/credit-leases.ts';
      const r = resources(connect({ kubeconfig: process.env.KC, namespace: process.env.NS }));
      const leases = new CreditLeases({ ledger: new Ledger({ accounts: r.accounts }), termMs: 1_000 });
      const draw = await leases.draw('killed', ${COST});
      await r.jobs.create({
        metadata: { name: 'from-killed' },
        spec: { account: 'killed', model: '${IMAGE}', version: 'v1.0', input: { prompt: 'x' }, costMicroCents: ${COST}, lease: draw.lease },
      });
      process.kill(process.pid, 'SIGKILL'); // dies holding the lease, as an api could
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, KC: kubeconfigPath(), NS: s.kube.namespace },
      stdio: 'inherit',
    });
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
    const held = (await account('killed')).status!;
    expect(Object.keys(held.leases ?? {})).toHaveLength(1);
    // The lease holds the job's cost and some headroom, all out of the balance until it closes.
    expect(Object.values(held.leases ?? {})[0]!.amount).toBeGreaterThanOrEqual(COST);
    expect(imbalance(held)).toBe(0);
    // The job runs (its lease pays for it) and is charged when the lease closes, after its term.
    await eventually(() => settled('killed'), 60_000, 'lease closed');
    const st = (await account('killed')).status!;
    expect((await s.r.jobs.get('from-killed'))?.status?.phase).toBe('completed');
    expect([st.balanceMicroCents, st.spentMicroCents]).toEqual([10_000_000 - COST, COST]);
    expect(imbalance(st)).toBe(0);
  }, 120_000);

  it('a job naming a lease that cannot pay for it never runs and costs nothing', async () => {
    await s.admin.createAccount({ name: 'forged', plan: 'pro', grantMicroCents: 10_000_000 });
    await eventually(
      async () => (await account('forged')).status?.balanceMicroCents === 10_000_000,
      5_000,
      'grant',
    );
    const job = (name: string, lease: string) =>
      s.r.jobs.create({
        metadata: { name },
        spec: {
          account: 'forged',
          model: IMAGE,
          version: 'v1.0',
          input: { prompt: name },
          costMicroCents: COST,
          lease,
        },
      });
    // A lease that does not exist, and one too small for its second job.
    await s.r.accounts.patchStatus('forged', {
      status: {
        balanceMicroCents: 10_000_000 - COST,
        leases: { 'l-small': { amount: COST, expiresAt: new Date(Date.now() + 60_000).toISOString() } },
      },
    });
    await job('forged-none', 'l-missing');
    await job('forged-first', 'l-small');
    await new Promise((r) => setTimeout(r, 1_100)); // a later creation second: a definite order
    await job('forged-second', 'l-small');
    await eventually(
      async () => (await s.r.jobs.get('forged-first'))?.status?.phase === 'completed',
      60_000,
      'the paid job ran',
    );
    for (const name of ['forged-none', 'forged-second'])
      expect((await s.r.jobs.get(name))?.status?.attempts ?? 0).toBe(0);
    // Both are removed after the reservation grace, having cost nothing.
    await eventually(
      async () => !(await s.r.jobs.get('forged-none')) && !(await s.r.jobs.get('forged-second')),
      30_000,
      'unpaid jobs removed',
    );
    expect(imbalance((await account('forged')).status)).toBe(0);
  }, 120_000);

  it("a cancelled job whose lease the controller's cache showed only later is refunded then, not at the lease's close", async () => {
    await s.admin.createAccount({ name: 'lagging', plan: 'pro', grantMicroCents: 10_000_000 });
    await eventually(
      async () => (await account('lagging')).status?.balanceMicroCents === 10_000_000,
      5_000,
      'grant',
    );
    // The job and its end reach the controller before its lease does (two watches, two orders).
    const created = await s.r.jobs.create({
      metadata: { name: 'lagging-1' },
      spec: {
        account: 'lagging',
        model: IMAGE,
        version: 'v1.0',
        input: { prompt: 'x' },
        costMicroCents: COST,
        lease: 'l-late',
      },
    });
    await s.r.jobs.updateStatus({
      ...created,
      status: {
        phase: 'cancelled',
        progress: 0,
        completedAt: new Date().toISOString(),
        refundedMicroCents: COST,
      },
    });
    await new Promise((r) => setTimeout(r, 1_500)); // the controller has looked, and found no lease
    await s.r.accounts.patchStatus('lagging', {
      status: {
        balanceMicroCents: 10_000_000 - COST,
        leases: { 'l-late': { amount: COST, expiresAt: new Date(Date.now() + 60_000).toISOString() } },
      },
    });
    // Refunded within seconds; the lease would close only after its minute and the grace.
    await eventually(
      async () => (await account('lagging')).status?.leases?.['l-late']?.refunded?.['lagging-1'] === COST,
      10_000,
      'the refund',
    );
    const status = (await account('lagging')).status;
    expect([status?.balanceMicroCents, imbalance(status)]).toEqual([10_000_000, 0]);
  });

  describe('a lease whose jobs outlive its close', () => {
    const PAUSED = 'genjobs/held/text-to-image';
    /** A model of the catalog whose jobs wait (maxConcurrency 0) until it gets a slot. */
    const pausedCatalog = (slots: number) =>
      applyImageModel(s.kube, { name: 'held', displayName: 'Held', baseCredits: COST, slots });
    /**
     * A released lease (its amount what its two jobs cost) that ends in a second: one job of
     * a model that runs, one of the waiting model.
     */
    async function leaseOfTwo(name: string): Promise<number> {
      await s.admin.createAccount({ name, plan: 'pro', grantMicroCents: 10_000_000 });
      await eventually(
        async () => (await account(name)).status?.balanceMicroCents === 10_000_000,
        5_000,
        'grant',
      );
      const expiresAt = Date.now() + 1_000;
      await s.r.accounts.patchStatus(name, {
        status: {
          balanceMicroCents: 10_000_000 - 2 * COST,
          leases: { [`l-${name}`]: { amount: 2 * COST, expiresAt: new Date(expiresAt).toISOString() } },
        },
      });
      for (const [job, model] of [
        [`${name}-runs`, IMAGE],
        [`${name}-waits`, PAUSED],
      ] as const) {
        await s.r.jobs.create({
          metadata: { name: job },
          spec: {
            account: name,
            model,
            version: 'v1.0',
            input: { prompt: job },
            costMicroCents: COST,
            lease: `l-${name}`,
          },
        });
      }
      await eventually(
        async () => (await s.r.jobs.get(`${name}-runs`))?.status?.phase === 'completed',
        60_000,
        'the job that runs',
      );
      return expiresAt;
    }

    beforeAll(async () => {
      await pausedCatalog(0);
      await eventually(() => s.api.catalog()?.variantsBySlug.has(PAUSED), 10_000, 'catalog');
    });

    it('stays open, paying for them, and closes in one write once they end: no reservation, no charge', async () => {
      const expiresAt = await leaseOfTwo('outlived');
      // Well past the close (term + grace) and a few looks of the Account reconciler.
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt + GRACE_MS + 3_000 - Date.now())));
      const open = (await account('outlived')).status!;
      expect(open.leases?.['l-outlived']?.amount).toBe(2 * COST);
      expect(open.reservations ?? {}).toEqual({});
      expect([open.balanceMicroCents, open.spentMicroCents ?? 0, imbalance(open)]).toEqual([
        10_000_000 - 2 * COST,
        0,
        0,
      ]);
      // The finished job stays while its lease still counts it.
      expect((await s.r.jobs.get('outlived-runs'))?.status?.phase).toBe('completed');

      let reserved = false;
      const watching = setInterval(async () => {
        const st = (await account('outlived').catch(() => undefined))?.status;
        if (Object.keys(st?.reservations ?? {}).length > 0) reserved = true;
      }, 100);
      try {
        await pausedCatalog(1);
        await eventually(
          async () => (await s.r.jobs.get('outlived-waits'))?.status?.phase === 'completed',
          60_000,
          'the waiting job ran',
        );
        await eventually(
          async () => Object.keys((await account('outlived')).status?.leases ?? {}).length === 0,
          20_000,
          'the lease closed',
        );
      } finally {
        clearInterval(watching);
      }
      expect(reserved).toBe(false);
      const st = (await account('outlived')).status!;
      expect([st.balanceMicroCents, st.spentMicroCents, imbalance(st)]).toEqual([
        10_000_000 - 2 * COST,
        2 * COST,
        0,
      ]);
      await pausedCatalog(0);
    }, 120_000);

    it('past GENJOBS_LEASE_HOLD closes all the same: the unfinished job gets a reservation, charged when it ends', async () => {
      await s.controller.stop();
      s.controller = await s.startController({ GENJOBS_LEASE_HOLD: '1s' });
      const expiresAt = await leaseOfTwo('overheld');
      await eventually(
        async () => Object.keys((await account('overheld')).status?.leases ?? {}).length === 0,
        20_000,
        'the lease closed',
      );
      // Not before its term, grace and hold.
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt + GRACE_MS + 1_000);
      const closed = (await account('overheld')).status!;
      expect(closed.reservations).toEqual({ 'overheld-waits': COST });
      expect([closed.spentMicroCents, imbalance(closed)]).toEqual([COST, 0]);

      await pausedCatalog(1);
      await eventually(() => settled('overheld'), 60_000, 'the waiting job ran and was charged');
      const st = (await account('overheld')).status!;
      expect([st.balanceMicroCents, st.spentMicroCents, imbalance(st)]).toEqual([
        10_000_000 - 2 * COST,
        2 * COST,
        0,
      ]);
      await s.controller.stop();
      s.controller = await s.startController();
    }, 120_000);
  });

  it("a replica's 402 is retryable, with Retry-After, while another replica's lease holds credit that would pay", async () => {
    const grant = 33 * COST; // ample for replica A's first lease: the cost and 8 more
    await s.admin.createAccount({ name: 'split', plan: 'enterprise', grantMicroCents: grant });
    await eventually(
      async () => (await account('split')).status?.balanceMicroCents === grant,
      5_000,
      'grant',
    );
    const replica = () =>
      new CreditLeases({ ledger: new Ledger({ accounts: s.r.accounts }), termMs: 20_000 });
    const [a, b] = [replica(), replica()];
    (await a.draw('split', COST)).done('created');
    const leased = Object.values((await account('split')).status?.leases ?? {});
    expect(leased.map((l) => l.amount)).toEqual([9 * COST]);
    // B draws the rest of the balance, then finds the account short.
    let refusal: AppError | undefined;
    for (let i = 0; i < 40 && !refusal; i++) {
      await b.draw('split', COST).then(
        (d) => d.done('created'),
        (err: AppError) => {
          refusal = err;
        },
      );
    }
    expect(refusal).toMatchObject({ code: 'INSUFFICIENT_BALANCE', retryable: true });
    expect(refusal?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal?.retryAfterSeconds).toBeLessThanOrEqual(30);
    expect(refusal?.message).toMatch(/other api replicas' credit leases hold 1206000 not yet drawn/);
    // A lease whose jobs drew it all holds nothing to come back: that 402 is final.
    const drawnOut = await new CreditLeases({
      ledger: new Ledger({ accounts: s.r.accounts }),
      termMs: 20_000,
      drawnFrom: () => 9 * COST,
    })
      .draw('split', COST)
      .catch((err: AppError) => err);
    expect(drawnOut).toMatchObject({ code: 'INSUFFICIENT_BALANCE', retryable: false });
    // A gives its unused credit back: a retry is paid (on a fresh replica: these ledgers have
    // no Account cache, so B's would decide from its own last write).
    a.retireAll();
    b.retireAll();
    await eventually(
      async () => ((await account('split')).status?.balanceMicroCents ?? 0) >= COST,
      5_000,
      'the release',
    );
    (await replica().draw('split', COST)).done('created');
    // With no other lease open, a 402 is final.
    const final = await replica()
      .draw('split', 100 * COST)
      .catch((err: AppError) => err);
    expect(final).toMatchObject({ code: 'INSUFFICIENT_BALANCE', retryable: false });
  });

  it('a cancel racing the start wins or loses cleanly: a cancelled job never ran, and no output survives', async () => {
    const key = await s.account({ name: 'canceller', plan: 'enterprise' });
    const outcomes = new Set<number>();
    for (let i = 0; i < 8; i++) {
      const { jobId } = await (
        await s.call('/v1/jobs/submit', {
          method: 'POST',
          key,
          json: { model: IMAGE, input: { prompt: `c${i}` } },
        })
      ).json();
      if (i % 2) await new Promise((r) => setTimeout(r, 20 * i));
      const cancel = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
      outcomes.add(cancel.status);
      const final = await eventually(
        async () => {
          const j = await s.r.jobs.get(jobId);
          return ['completed', 'cancelled', 'failed'].includes(j?.status?.phase ?? '') ? j : undefined;
        },
        60_000,
        'a final state',
      );
      if (cancel.status === 200) {
        // Admission is the write that leaves pending: a cancelled job was never admitted.
        expect([final.status?.phase, final.status?.attempts]).toEqual(['cancelled', undefined]);
        expect(await outputsOf(jobId)).toEqual([]);
      } else {
        expect([cancel.status, final.status?.phase]).toEqual([409, 'completed']);
        // The output lives under a random folder: its URL cannot be guessed from the job id.
        const url = final.status?.outputs?.[0]?.url ?? '';
        expect(url).toMatch(new RegExp(`/jobs/${jobId}/[0-9a-f]{32}/output-0\\.png$`));
      }
    }
    expect(outcomes.size).toBeGreaterThan(0);
  }, 180_000);
});

const member = (j: GenerationJob) => ({
  name: j.metadata.name ?? '',
  cost: j.spec.costMicroCents,
  createdAt: Date.parse(String(j.metadata.creationTimestamp)),
});

async function outputsOf(jobId: string): Promise<string[]> {
  const dir = join(s.config.GENJOBS_BLOB_DIR, 'objects', 'jobs', jobId);
  return readdir(dir, { recursive: true }).catch(() => []);
}
