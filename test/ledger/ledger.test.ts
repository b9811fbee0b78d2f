import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyName, hashKey } from '../../src/accounts/keys.ts';
import { webhookSecretName } from '../../src/accounts/webhook-secret.ts';
import { INSTALL_CONFIGMAP } from '../../src/admin/cli.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { retryOnConflict } from '../../src/k8s/cas.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { eventually, kubeconfigPath, testNamespace } from '../support/cluster.ts';
import { memoryLogger } from '../support/service.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const run = promisify(execFile);
let s: TestStack;
const logs = memoryLogger();

beforeAll(async () => {
  s = await startTestStack('ledger', { env: { GENJOBS_RESERVATION_GRACE: '1s' }, logger: logs.log });
});
afterAll(async () => s?.stop());

const IMAGE = 'genjobs/reference-image/text-to-image';
const account = async (name: string) => (await s.r.accounts.get(name))!;
/** Runs the admin command `genjobs -n NS …` as an operator would; rejects on a non-zero exit. */
const genjobsIn = (namespace: string, ...args: string[]) =>
  run(process.execPath, [`${REPO_ROOT}bin/genjobs.js`, '-n', namespace, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath() },
  });
/** The same in the test's namespace. */
const genjobs = (...args: string[]) => genjobsIn(s.kube.namespace, ...args);

describe('the ledger on a real Account', () => {
  it('200 concurrent reservations from two writers against a balance for 57: exactly 57 succeed', async () => {
    const cost = 134_000;
    await s.admin.createAccount({ name: 'race', plan: 'enterprise', grantMicroCents: cost * 57 + 5_000 });
    // Two ledgers stand for two api replicas: their writes conflict and are retried.
    const ledgers = [0, 1].map(() => new Ledger({ accounts: s.r.accounts }));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        ledgers[i % 2]!.run('race', { kind: 'reserve', jobId: `job-${i}`, cost, maxConcurrent: 1_000 }),
      ),
    );
    const ok = results.filter((r) => r.ok).length;
    expect(ok).toBe(57);
    expect(results.filter((r) => !r.ok && r.reason === 'INSUFFICIENT_BALANCE')).toHaveLength(143);
    const status = (await account('race')).status!;
    expect(status.balanceMicroCents).toBe(5_000);
    expect(Object.keys(status.reservations ?? {})).toHaveLength(57);
    expect(imbalance(status)).toBe(0);
  });

  it('settlements linger to share one write; a reservation does not wait; flush writes what lingers', async () => {
    const cost = 1_000;
    await s.admin.createAccount({ name: 'linger', plan: 'enterprise', grantMicroCents: cost * 40 });
    await eventually(
      async () => (await account('linger')).status?.balanceMicroCents === cost * 40,
      5_000,
      'grant',
    );
    const batches: number[] = [];
    const ledger = new Ledger({
      accounts: s.r.accounts,
      onBatch: (n) => batches.push(n),
      settleLingerMs: 60_000,
    });
    const reserve = (i: number) =>
      ledger.run('linger', { kind: 'reserve', jobId: `l-${i}`, cost, maxConcurrent: 1_000 });
    for (const r of await Promise.all(Array.from({ length: 20 }, (_, i) => reserve(i))))
      expect(r.ok).toBe(true);
    batches.length = 0;

    // Ten charges and ten refunds: nothing is written until the linger ends or a flush.
    const settled = Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ledger.run('linger', { kind: i % 2 ? 'refund' : 'charge', jobId: `l-${i}` }),
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(batches).toEqual([]);
    expect(Object.keys((await account('linger')).status?.reservations ?? {})).toHaveLength(20);

    // A reservation is written at once, and takes the lingering settlements with it.
    expect((await reserve(20)).ok).toBe(true);
    expect(batches).toEqual([21]);
    const results = await settled;
    expect(results.filter((r) => r.ok && r.amount === cost)).toHaveLength(20);

    const charge = ledger.run('linger', { kind: 'charge', jobId: 'l-20' });
    await ledger.flush();
    expect((await charge).ok).toBe(true);
    const st = (await account('linger')).status!;
    expect(st.reservations ?? {}).toEqual({});
    expect([st.balanceMicroCents, st.spentMicroCents]).toEqual([cost * 29, cost * 11]);
    expect(imbalance(st)).toBe(0);
  });

  it('the plan concurrency limit is exact under parallel submits, and a settled slot is usable again', async () => {
    const key = await s.account({ name: 'freebie', plan: 'free' });
    // With the controller stopped nothing settles behind the test's back.
    const submit = () =>
      s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input: { prompt: 'x' } } });
    await s.controller.stop();
    const answers = await Promise.all(Array.from({ length: 6 }, submit));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await refused[0]!.json()).code).toBe('CONCURRENT_JOBS_EXCEEDED');
    const { jobId } = await ok[0]!.json();
    await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
    expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(429);
    s.controller = await s.startController();
    expect(imbalance((await account('freebie')).status)).toBe(0);
  });

  it('a burst the balance cannot pay: as many jobs as it pays for, the rest 402 within the plan and 429 past it', async () => {
    const estimate = await s.call('/v1/jobs/estimate', {
      method: 'POST',
      key: await s.account({ name: 'pricer' }),
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    const cost = (await estimate.json()).estimatedCostMicroCents as number;
    // Room for three jobs; the pro plan allows twenty at once.
    const key = await s.account({ name: 'short', plan: 'pro', grantMicroCents: cost * 3 });
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input: { prompt: 'x' } } }),
      ),
    );
    const codes = await Promise.all(
      answers.map(async (a) => (a.status === 200 ? 200 : (await a.json()).code)),
    );
    expect(codes.filter((c) => c === 200)).toHaveLength(3);
    // The plan's slot is taken before credit is drawn: the submits past the plan's 20 are
    // 429 (never drawing the credit of those within it), the others the balance refuses.
    const refused = codes.filter((c) => c !== 200);
    expect(refused.filter((c) => c !== 'INSUFFICIENT_BALANCE' && c !== 'CONCURRENT_JOBS_EXCEEDED')).toEqual(
      [],
    );
    expect(refused.filter((c) => c === 'INSUFFICIENT_BALANCE').length).toBeGreaterThanOrEqual(17);
    await eventually(
      async () => imbalance((await account('short')).status) === 0,
      10_000,
      'the ledger balanced',
    );
  });

  it('a free job (a 100% discount) is queued, runs and completes with nothing held or charged', async () => {
    const key = await s.account({ name: 'gratis', plan: 'pro', grantMicroCents: 0, discountPercent: 100 });
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect(res.status).toBe(200);
    const { jobId, costMicroCents } = await res.json();
    expect(costMicroCents).toBe(0);
    await eventually(
      async () => (await (await s.call(`/v1/jobs/${jobId}`, { key })).json()).status === 'completed',
      60_000,
      'the free job completed',
    );
    const a = await (await s.call('/v1/account', { key })).json();
    expect([a.balanceMicroCents, a.heldMicroCents, a.spentMicroCents]).toEqual([0, 0, 0]);
    expect(imbalance((await account('gratis')).status)).toBe(0);
  });

  it('a process killed between reserving and creating the job: the reservation is refunded once, nothing lost', async () => {
    await s.admin.createAccount({ name: 'crash', plan: 'pro', grantMicroCents: 1_000_000 });
    await eventually(
      async () => (await account('crash')).status?.balanceMicroCents === 1_000_000,
      5_000,
      'grant applied',
    );
    const script = `
      import { connect } from '${REPO_ROOT}src/k8s/client.ts';
      import { resources } from '${REPO_ROOT}src/k8s/resources.ts';
      import { Ledger } from '${REPO_ROOT}src/ledger/ledger.ts';
      const r = resources(connect({ kubeconfig: process.env.KC, namespace: process.env.NS }));
      await new Ledger({ accounts: r.accounts }).run('crash', { kind: 'reserve', jobId: 'never-created', cost: 300000, maxConcurrent: 20 });
      process.kill(process.pid, 'SIGKILL'); // dies before the job create, as an api could
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, KC: kubeconfigPath(), NS: s.kube.namespace },
      stdio: 'inherit',
    });
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
    expect((await account('crash')).status?.reservations).toEqual({ 'never-created': 300_000 });
    await eventually(
      async () => (await account('crash')).status?.balanceMicroCents === 1_000_000,
      15_000,
      'the orphan refunded',
    );
    const after = (await account('crash')).status!;
    expect(after.reservations ?? {}).toEqual({});
    expect(imbalance(after)).toBe(0);
    // The reconciler runs again (restart) and refunds nothing more.
    await s.controller.stop();
    s.controller = await s.startController();
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await account('crash')).status?.balanceMicroCents).toBe(1_000_000);
  });

  it('a job whose submit died before its reservation was written is removed after the grace, costing nothing', async () => {
    await s.admin.createAccount({ name: 'halfway', plan: 'pro', grantMicroCents: 1_000_000 });
    await eventually(
      async () => (await account('halfway')).status?.balanceMicroCents === 1_000_000,
      5_000,
      'grant applied',
    );
    // What an api leaves when it dies between creating the job and reserving for it.
    await s.r.jobs.create({
      metadata: { name: 'never-reserved' },
      spec: {
        account: 'halfway',
        model: IMAGE,
        version: 'v1.0',
        input: { prompt: 'x' },
        costMicroCents: 134_000,
      },
    });
    await eventually(
      async () => (await s.r.jobs.get('never-reserved')) === undefined,
      15_000,
      'the job removed',
    );
    const st = (await account('halfway')).status!;
    expect([st.balanceMicroCents, st.spentMicroCents ?? 0]).toEqual([1_000_000, 0]);
    const events = await s.kube.core.listNamespacedEvent({
      namespace: s.kube.namespace,
      fieldSelector: 'involvedObject.name=never-reserved',
    });
    expect(events.items.map((e) => e.reason)).toContain('NoReservation');
  });

  it('grants are applied exactly once across controller restarts', async () => {
    await s.admin.createAccount({ name: 'grants', plan: 'pro', grantMicroCents: 500 });
    for (let i = 0; i < 3; i++) {
      await s.admin.grant('grants', 100);
      await s.controller.stop();
      s.controller = await s.startController();
    }
    await eventually(
      async () => (await account('grants')).status?.balanceMicroCents === 800,
      10_000,
      'grants applied',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const st = (await account('grants')).status!;
    expect([st.balanceMicroCents, st.appliedGrantMicroCents]).toEqual([800, 800]);
    expect(st.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
  });

  it('a grant after one lowered by hand adds all of it to the balance, counted from what was applied', async () => {
    await s.admin.createAccount({ name: 'lowered', plan: 'pro', grantMicroCents: 10_000 });
    await eventually(
      async () => (await account('lowered')).status?.appliedGrantMicroCents === 10_000,
      10_000,
      'the grant applied',
    );
    // An operator lowers the grant by hand: the ledger never takes credit back, it says so.
    // (Read again on a conflict: the controller may write the status between read and update.)
    await retryOnConflict(async () => {
      const a = await account('lowered');
      return s.r.accounts.update({ ...a, spec: { ...a.spec, grantedMicroCents: 4_000 } });
    });
    await eventually(
      async () =>
        (await account('lowered')).status?.conditions?.find((c) => c.type === 'Ready')?.reason ===
        'GrantLowered',
      10_000,
      'Ready=False, GrantLowered',
    );
    // The admin command shows the grant the ledger holds (balance + held + spent adds up to
    // it) and why the account is not ready.
    const shown = await genjobs('accounts', 'get', 'lowered');
    const [header, row, why] = shown.stdout.trim().split('\n');
    expect(header).toBe('NAME\tPLAN\tBALANCE\tHELD\tGRANTED\tSPENT');
    expect(row).toBe('lowered\tpro\t10000\t0\t10000\t0');
    expect(why).toMatch(/^Ready False \(GrantLowered\): grantedMicroCents is below/);
    const after = await s.admin.grant('lowered', 6_000);
    expect(after.spec.grantedMicroCents).toBe(16_000);
    await eventually(
      async () => (await account('lowered')).status?.balanceMicroCents === 16_000,
      10_000,
      'the whole top-up on the balance',
    );
    expect((await account('lowered')).status?.appliedGrantMicroCents).toBe(16_000);
    await eventually(
      async () =>
        (await account('lowered')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      10_000,
      'Ready again',
    );
  });
});

describe('API keys', () => {
  it('create, use, scope refused, revoke, refused within 2 s; the secret is stored nowhere', async () => {
    await s.admin.createAccount({ name: 'keyed', plan: 'pro', grantMicroCents: 10_000_000 });
    const created = JSON.parse(
      (await genjobs('keys', 'create', '--account', 'keyed', '--scopes', 'check_status', '-o', 'json'))
        .stdout,
    );
    expect(created.key).toMatch(/^gjk_[A-Za-z0-9]{40}$/);
    const key: string = created.key;

    const est = await s.call('/v1/jobs/estimate', { method: 'POST', key, json: { model: IMAGE } });
    expect(est.status).toBe(200);
    const submit = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect([submit.status, (await submit.json()).code]).toEqual([403, 'INSUFFICIENT_SCOPE']);

    await genjobs('keys', 'revoke', created.name);
    const revokedAt = Date.now();
    await eventually(
      async () =>
        (await s.call('/v1/jobs/estimate', { method: 'POST', key, json: { model: IMAGE } })).status === 401,
      2_000,
      'revocation',
    );
    expect(Date.now() - revokedAt).toBeLessThan(2_000);

    const secret = key.slice(4);
    const everything = JSON.stringify([
      await s.r.apiKeys.listAll(),
      await s.r.accounts.listAll(),
      await s.r.jobs.listAll(),
      (await s.kube.core.listNamespacedEvent({ namespace: s.kube.namespace })).items,
      (await genjobs('keys', 'list', '-o', 'json')).stdout,
    ]);
    expect(everything).not.toContain(secret);
    expect(logs.lines.join('\n')).not.toContain(secret);
    expect(logs.lines.length).toBeGreaterThan(0);
  });
});

describe('keys revoke', () => {
  it('takes the leaked key itself or its listed prefix, not only its name; an unknown one says what it looked for', async () => {
    await s.admin.createAccount({ name: 'leaky', plan: 'pro', grantMicroCents: 10_000_000 });
    const make = async () =>
      JSON.parse(
        (await genjobs('keys', 'create', '--account', 'leaky', '--scopes', 'check_status', '-o', 'json'))
          .stdout,
      );
    const works = async (key: string) => (await s.call('/v1/account', { key })).status === 200;
    const byKey = await make();
    const byPrefix = await make();
    await eventually(async () => (await works(byKey.key)) && works(byPrefix.key), 5_000, 'both keys cached');

    expect((await genjobs('keys', 'revoke', byKey.key)).stdout.trim()).toBe(`API key ${byKey.name} revoked`);
    expect((await genjobs('keys', 'revoke', byPrefix.prefix, '-o', 'json')).stdout).toContain(byPrefix.name);
    await eventually(async () => !(await works(byKey.key)) && !(await works(byPrefix.key)), 2_000, 'revoked');

    const typo = await genjobs('keys', 'list', '--account', 'leakyy').catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(typo).toMatchObject({ code: 2, stderr: 'genjobs: account leakyy not found\n' });
    const again = await genjobs('keys', 'revoke', byKey.key).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(again).toMatchObject({ code: 2 });
    expect((again as { stderr: string }).stderr.trim()).toBe(
      `genjobs: no API key ${byKey.prefix}… (ApiKey ${byKey.name}): revoked already, or never made here; genjobs keys list shows each key's name and prefix`,
    );
  });
});

describe('the admin CLI', () => {
  /** Runs `genjobs -n NS …`; resolves with its exit code and output, whatever the code. */
  const cli = (...args: string[]) =>
    genjobs(...args).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it('refuses bad input with one line and exit 2, and writes nothing', async () => {
    await s.admin.createAccount({ name: 'operated', plan: 'pro', grantMicroCents: 10_000_000 });
    const refusals: Array<[string[], RegExp]> = [
      [
        ['accounts', 'create', 'gilded', '--plan', 'gold'],
        /unknown plan "gold": one of free, pro, enterprise/,
      ],
      [['accounts', 'create', 'gilded', '--grant', '-5'], /not a whole number/],
      [['accounts', 'grant', 'operated', '-5'], /not a whole number above 0: -5/],
      [['accounts', 'grant', 'operated', '0'], /not a whole number above 0: 0/],
      [['accounts', 'grant', 'operated', '1.5'], /not a whole number above 0: 1\.5/],
      [['accounts', 'grant', 'operated'], /missing required argument 'microcents'/],
      [['accounts', 'create', 'gilded', '--discount-percent', '150'], /a percentage is 0 to 100/],
      [['accounts', 'grant', 'operated', '99999999999999999999'], /too large/],
      [['accounts', 'grant', 'operated', '999999999999999'], /past the most an account holds/],
      [['accounts', 'get', 'nosuch'], /account nosuch not found/],
      [
        ['keys', 'create', '--account', 'operated', '--scopes', 'check_status', '--expires-in', '30x'],
        /not a lifetime \(like 30d, 12h or 90m\): 30x/,
      ],
      [['accounts', 'list', '-o', 'yaml'], /Allowed choices are json/],
    ];
    for (const [args, message] of refusals) {
      const r = await cli(...args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(message);
      // One line, as README says: no stack trace, no usage text after it.
      expect([args.join(' '), r.stderr]).toEqual([
        args.join(' '),
        expect.stringMatching(/^genjobs: [^\n]+\n$/),
      ]);
    }
    expect(await s.r.accounts.get('gilded')).toBeUndefined();
    expect((await account('operated')).spec.grantedMicroCents).toBe(10_000_000);
    expect((await s.r.apiKeys.listAll()).filter((k) => k.spec.account === 'operated')).toEqual([]);
  });

  it("takes the install's plans and webhook Secret namespace from its genjobs-install ConfigMap", async () => {
    const secretNs = (await testNamespace('ledger-install-secrets')).namespace;
    await s.kube.core.createNamespacedConfigMap({
      namespace: s.kube.namespace,
      body: {
        metadata: { name: INSTALL_CONFIGMAP },
        data: { plans: 'gold=5,pro=20', webhookSecretNamespace: secretNs },
      },
    });
    try {
      const gold = await cli('accounts', 'create', 'gilded-install', '--plan', 'gold');
      expect([gold.code, gold.stderr]).toEqual([0, '']);
      expect((await account('gilded-install')).spec.plan).toBe('gold');
      // `free` is built in, but this install does not have it.
      const free = await cli('accounts', 'create', 'freed-install', '--plan', 'free');
      expect(free.code).toBe(2);
      expect(free.stderr).toBe(
        `genjobs: unknown plan "free": one of gold, pro (the plans of the install in namespace ${s.kube.namespace})\n`,
      );
      expect(await s.r.accounts.get('freed-install')).toBeUndefined();

      const shown = await cli('accounts', 'webhook-secret', 'gilded-install');
      expect([shown.code, shown.stderr]).toEqual([0, '']);
      const stored = await s.kube.core.readNamespacedSecret({
        name: webhookSecretName('gilded-install'),
        namespace: secretNs,
      });
      expect(Buffer.from(stored.data?.current ?? '', 'base64').toString()).toBe(shown.stdout.trim());

      // Deleting the account finds its Secret there too, with no --secret-namespace.
      const deleted = await cli('accounts', 'delete', 'gilded-install', '--timeout', '60s');
      expect([deleted.code, deleted.stderr]).toEqual([0, expect.any(String)]);
      await expect(
        s.kube.core.readNamespacedSecret({ name: webhookSecretName('gilded-install'), namespace: secretNs }),
      ).rejects.toMatchObject({ code: 404 });
    } finally {
      await s.kube.core.deleteNamespacedConfigMap({ name: INSTALL_CONFIGMAP, namespace: s.kube.namespace });
    }
  });

  it('warns when the namespace runs no genjobs (the CRDs take accounts anywhere)', async () => {
    const here = await cli('accounts', 'list');
    expect(here.code).toBe(0);
    expect(here.stderr).not.toMatch(/warning/);
    const elsewhere = await genjobsIn('default', 'accounts', 'list');
    expect(elsewhere.stderr).toMatch(
      /warning: namespace default has no genjobs catalog: is the service installed here\?/,
    );
  });

  it('list output ends with a newline, as any line-based tool expects', async () => {
    for (const args of [
      ['accounts', 'list'],
      ['accounts', 'get', 'operated'],
      ['keys', 'list'],
    ]) {
      const r = await cli(...args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 0]);
      expect(r.stdout).toMatch(/^NAME\t[^\n]*\n([^\n]+\n)*$/);
    }
    expect((await cli('accounts', 'list')).stdout).toMatch(/\noperated\tpro\t/);
  });

  it("-o json prints the objects without the apiserver's managedFields", async () => {
    const r = await cli('accounts', 'get', 'operated', '-o', 'json');
    expect(JSON.parse(r.stdout)).toMatchObject({ metadata: { name: 'operated' }, spec: { plan: 'pro' } });
    expect(r.stdout).not.toContain('managedFields');
  });

  it('keys create prints the key alone on stdout, so a script can capture it', async () => {
    const r = await cli('keys', 'create', '--account', 'operated', '--scopes', 'check_status');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^gjk_[A-Za-z0-9]{40}\n$/);
    expect(r.stderr).toMatch(/only time the key is shown/);
  });
});

describe('what an operator reads at 3 a.m.', () => {
  /** The log lines so far whose fields include `fields`. */
  const logged = (fields: Record<string, unknown>) =>
    logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => Object.entries(fields).every(([k, v]) => l[k] === v));

  it("follows a job by its id through the api's and the controller's lines", async () => {
    const key = await s.account({ name: 'traced' });
    const submitted = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'traced' } },
    });
    const { jobId } = await submitted.json();
    await eventually(
      async () => (await (await s.call(`/v1/jobs/${jobId}`, { key })).json()).status === 'completed',
      30_000,
      'the job completed',
    );
    const keyName = apiKeyName(hashKey(key));
    expect(logged({ msg: 'request', jobId, route: '/v1/jobs/submit' })).toEqual([
      expect.objectContaining({
        status: 200,
        account: 'traced',
        apiKey: keyName,
        requestId: submitted.headers.get('x-request-id'),
      }),
    ]);
    // The job names the key it was made with: what a leaked key made can be listed.
    const made = await s.r.jobs.listAll({ labelSelector: `genjobs.io/api-key=${keyName}` });
    expect(made.map((j) => j.metadata.name)).toEqual([jobId]);
    await eventually(
      async () => logged({ msg: 'job completed', jobId }).length === 1,
      5_000,
      'the end logged',
    );
    expect(logged({ msg: 'job started', jobId })).toEqual([
      expect.objectContaining({ account: 'traced', model: IMAGE, from: 'pending', attempt: 1 }),
    ]);
    expect(logged({ msg: 'job completed', jobId })[0]).toMatchObject({
      account: 'traced',
      from: 'processing',
    });
    expect(logged({ msg: 'job completed', jobId })[0]!.seconds).toBeGreaterThan(0);
  });

  it('names the code of a refusal and the key refused, never the key', async () => {
    const made = `gjk_${'Z'.repeat(40)}`;
    const res = await s.call('/v1/jobs', { key: made });
    expect(res.status).toBe(401);
    const line = logged({ msg: 'request', requestId: res.headers.get('x-request-id') })[0];
    expect(line).toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
      apiKey: apiKeyName(hashKey(made)),
      route: '/v1/jobs',
    });
    // The metrics name the route too, not "unmatched".
    const metrics = await (await fetch(`${s.api.url}/metrics`)).text();
    expect(metrics).toMatch(
      /genjobs_http_request_duration_seconds_count\{[^}]*route="\/v1\/jobs"[^}]*status="401"/,
    );
    expect(JSON.stringify(line)).not.toContain(made.slice(4));
  });

  it('counts a cancelled job among the finished ones (the api writes cancels)', async () => {
    const key = await s.account({ name: 'changed-mind' });
    await s.controller.stop(); // so the job stays pending
    try {
      const { jobId } = await (
        await s.call('/v1/jobs/submit', {
          method: 'POST',
          key,
          json: { model: IMAGE, input: { prompt: 'c' } },
        })
      ).json();
      expect((await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key })).status).toBe(200);
      const metrics = await (await fetch(`${s.api.url}/metrics`)).text();
      expect(metrics).toMatch(
        /genjobs_jobs_finished_total\{model="genjobs\/reference-image\/text-to-image",phase="cancelled"\} [1-9]/,
      );
    } finally {
      s.controller = await s.startController();
    }
  });

  it('a ledger edited by hand turns its Account Ready=False LedgerImbalanced, with an Event and an error line; put back, Ready again', async () => {
    // Everything above (racing writers, a killed api, controller restarts, leases closed,
    // jobs settled and cancelled) kept every ledger balanced: nothing was reported.
    expect(logged({ level: 'error' })).toEqual([]);
    expect(
      (await s.r.accounts.listAll()).filter((a) =>
        a.status?.conditions?.some((c) => c.reason === 'LedgerImbalanced'),
      ),
    ).toEqual([]);

    await s.admin.createAccount({ name: 'tampered', plan: 'pro', grantMicroCents: 10_000_000 });
    const ready = async () => (await account('tampered')).status?.conditions?.find((c) => c.type === 'Ready');
    await eventually(async () => (await ready())?.reason === 'LedgerCurrent', 10_000, 'Ready');
    /** `kubectl replace --subresource=status` with the balance changed. */
    const setBalance = async (balance: (b: number) => number) => {
      for (;;) {
        const a = await account('tampered');
        const status = { ...a.status, balanceMicroCents: balance(a.status?.balanceMicroCents ?? 0) };
        const put = await s.r.accounts.updateStatus({ ...a, status }).catch((e: { code?: number }) => e);
        if ((put as { code?: number }).code !== 409) return;
      }
    };
    await setBalance((b) => b + 2_500_000);
    const imbalanced = await eventually(
      async () => {
        const c = await ready();
        return c?.reason === 'LedgerImbalanced' && c;
      },
      10_000,
      'Ready=False LedgerImbalanced',
    );
    expect(imbalanced).toMatchObject({
      status: 'False',
      message: expect.stringMatching(
        /\$2\.50 \(2500000 micro-cents\) more than the applied grant: money created/,
      ),
    });
    const warnings = async () =>
      (
        await s.kube.core.listNamespacedEvent({
          namespace: s.kube.namespace,
          fieldSelector: 'involvedObject.name=tampered,reason=LedgerImbalanced',
        })
      ).items;
    await eventually(async () => (await warnings()).length === 1, 5_000, 'the Warning Event');
    const gauge = async () =>
      /^genjobs_ledger_imbalanced_accounts (\d+)$/m.exec(
        await (await fetch(`${s.controller.url}/metrics`)).text(),
      )?.[1];
    expect(await gauge()).toBe('1');
    expect(logged({ level: 'error' })).toEqual([
      expect.objectContaining({ account: 'tampered', imbalanceMicroCents: 2_500_000 }),
    ]);

    await setBalance((b) => b - 2_500_000);
    await eventually(async () => (await ready())?.reason === 'LedgerCurrent', 10_000, 'Ready again');
    expect(await ready()).toMatchObject({ status: 'True' });
    expect(await gauge()).toBe('0');
    expect(await warnings()).toHaveLength(1);
    expect(logged({ level: 'error' })).toHaveLength(1);
  });
});
