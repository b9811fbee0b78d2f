import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountReconciler, imbalanceMessage } from '../../src/controller/account/reconciler.ts';
import type { Kube } from '../../src/k8s/client.ts';
import { crInformer } from '../../src/k8s/cr-informer.ts';
import { EventRecorder } from '../../src/k8s/events.ts';
import type { Informer } from '../../src/k8s/informer.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';
import type { Account, AccountStatus, GenerationJob } from '../../src/k8s/types.ts';
import { dollars } from '../../src/ledger/dollars.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { Money } from '../../src/ledger/money.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { createMetrics } from '../../src/metrics.ts';
import { eventually, testNamespace } from '../support/cluster.ts';
import { memoryLogger } from '../support/service.ts';

/**
 * The Account reconciler alone on a namespace of the real apiserver (no controller beside
 * it), called by hand, so that each reconcile and what it reports can be counted: the
 * Ready condition, the Warning Event, the error line and the gauge.
 */
let kube: Kube;
let r: Resources;
let accounts: Informer<Account>;
let jobs: Informer<GenerationJob>;
let reconciler: AccountReconciler;
const logs = memoryLogger();
const metrics = createMetrics(new Registry(), { processMetrics: false });

beforeAll(async () => {
  kube = await testNamespace('imbalance');
  r = resources(kube);
  accounts = crInformer<Account>(kube, r.accounts, logs.log);
  jobs = crInformer<GenerationJob>(kube, r.jobs, logs.log);
  const money = new Money(jobs, accounts);
  await Promise.all([accounts.start(), jobs.start()]);
  await Promise.all([accounts.waitForSync(), jobs.waitForSync()]);
  reconciler = new AccountReconciler({
    accounts: r.accounts,
    accountCache: accounts,
    jobs: r.jobs,
    jobCache: jobs,
    ledger: new Ledger({ accounts: r.accounts, cached: (n) => accounts.get(n) }),
    events: new EventRecorder(kube, 'genjobs-controller', logs.log),
    log: logs.log,
    metrics,
    reservationGraceMs: 60_000,
    leaseGraceMs: 2_000,
    leaseHoldMs: 60_000,
    money,
    plans: { free: 2, pro: 20 },
    enqueueJob: () => {},
  });
});
afterAll(async () => {
  await Promise.all([accounts?.stop(), jobs?.stop()]);
});

const gauge = async () => (await metrics.ledgerImbalancedAccounts.get()).values[0]?.value;
const ready = (a: Account | undefined) => a?.status?.conditions?.find((c) => c.type === 'Ready');
const errorLines = () =>
  logs.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.level === 'error' && String(l.msg).startsWith('ledger imbalanced'));
const warnings = async () =>
  (
    await kube.core.listNamespacedEvent({
      namespace: kube.namespace,
      fieldSelector: 'involvedObject.name=edited,reason=LedgerImbalanced',
    })
  ).items;

/**
 * Reconciles as the informer's events would: once the cache holds what the apiserver has,
 * and again after each write the reconcile made, until a reconcile writes nothing.
 */
async function reconcile(name = 'edited'): Promise<Account> {
  for (let i = 0; ; i++) {
    const before = (await r.accounts.get(name))!;
    await caughtUp(before);
    await reconciler.reconcile(name);
    const after = (await r.accounts.get(name))!;
    if (after.metadata.resourceVersion === before.metadata.resourceVersion || i >= 5) {
      await caughtUp(after);
      return after;
    }
  }
}

const caughtUp = (a: Account) =>
  eventually(
    () => accounts.get(a.metadata.name ?? '')?.metadata.resourceVersion === a.metadata.resourceVersion,
    5_000,
    'cache caught up',
  );

/** What `kubectl edit --subresource=status` does: a PUT of the whole status. */
async function editStatus(change: (s: AccountStatus) => AccountStatus): Promise<void> {
  const a = (await r.accounts.get('edited'))!;
  await r.accounts.updateStatus({ ...a, status: change(a.status!) });
}

it('a hand-edited ledger: Ready=False LedgerImbalanced, one Event and one error line per amount, the gauge; put back, Ready again', async () => {
  await r.accounts.create({
    metadata: { name: 'edited' },
    spec: { plan: 'pro', grantedMicroCents: 10_000_000 },
  });
  const honest = await reconcile();
  expect(ready(honest)).toMatchObject({ status: 'True', reason: 'LedgerCurrent' });
  expect(await gauge()).toBe(0);
  const original = honest.status!;

  // Balance added by hand: $5 created.
  await editStatus((s) => ({ ...s, balanceMicroCents: (s.balanceMicroCents ?? 0) + 5_000_000 }));
  let a = await reconcile();
  expect(imbalance(a.status)).toBe(5_000_000);
  expect(ready(a)).toMatchObject({
    status: 'False',
    reason: 'LedgerImbalanced',
    message: expect.stringMatching(/^balance \+ held \+ spent is \$5\.00 \(5000000 micro-cents\) more than/),
  });
  expect(ready(a)!.message).toContain('money created');
  expect(await gauge()).toBe(1);
  // Reconciled again (every informer event, every resync): nothing more is reported.
  await reconcile();
  await reconcile();
  await eventually(async () => (await warnings()).length === 1, 5_000, 'the Event');
  expect((await warnings())[0]).toMatchObject({ type: 'Warning', message: ready(a)!.message });
  expect(errorLines()).toEqual([
    expect.objectContaining({ account: 'edited', imbalanceMicroCents: 5_000_000 }),
  ]);

  // Another edit, another amount: money missing, reported once more.
  await editStatus((s) => ({ ...s, balanceMicroCents: (original.balanceMicroCents ?? 0) - 134_000 }));
  a = await reconcile();
  expect(ready(a)).toMatchObject({ status: 'False', reason: 'LedgerImbalanced' });
  expect(ready(a)!.message).toMatch(/\$0\.134 \(134000 micro-cents\) less than .*money missing/);
  await reconcile();
  await eventually(async () => (await warnings()).length === 2, 5_000, 'the second Event');
  expect(errorLines().map((l) => l.imbalanceMicroCents)).toEqual([5_000_000, -134_000]);
  expect(await gauge()).toBe(1);

  // Put back: Ready as before, the gauge at 0, nothing more reported.
  await editStatus((s) => ({ ...s, balanceMicroCents: original.balanceMicroCents }));
  a = await reconcile();
  expect(ready(a)).toMatchObject({ status: 'True', reason: 'LedgerCurrent' });
  expect(await gauge()).toBe(0);
  expect(errorLines()).toHaveLength(2);
  expect(await warnings()).toHaveLength(2);

  // A deleted Account leaves the count.
  await editStatus((s) => ({ ...s, spentMicroCents: 1 }));
  await reconcile();
  expect(await gauge()).toBe(1);
  await r.accounts.delete('edited');
  await eventually(() => accounts.get('edited') === undefined, 5_000, 'deletion seen');
  await reconciler.reconcile('edited');
  expect(await gauge()).toBe(0);
});

it('an Account of a plan the service does not have: Ready=False UnknownPlan, naming the plans; set one, Ready', async () => {
  await r.accounts.create({ metadata: { name: 'gilded' }, spec: { plan: 'gold', grantedMicroCents: 1_000 } });
  let a = await reconcile('gilded');
  expect(ready(a)).toMatchObject({
    status: 'False',
    reason: 'UnknownPlan',
    message: "plan gold is not one of this service's (free, pro): its submits are refused until it has one",
  });
  await r.accounts.update({ ...a, spec: { ...a.spec, plan: 'pro' } });
  a = await reconcile('gilded');
  expect(ready(a)).toMatchObject({ status: 'True', reason: 'LedgerCurrent' });
});

it('says the amount in dollars exactly and which way', () => {
  expect([dollars(0), dollars(1), dollars(134_000), dollars(5_000_000), dollars(1_234_567_890_123)]).toEqual([
    '$0.00',
    '$0.000001',
    '$0.134',
    '$5.00',
    '$1,234,567.890123',
  ]);
  expect(imbalanceMessage(-1)).toMatch(
    /^balance \+ held \+ spent is \$0\.000001 \(1 micro-cents\) less than the applied grant: money missing/,
  );
});
