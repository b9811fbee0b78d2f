import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ControllerState } from '../../src/controller/main.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

// A node that binds no Pods: the admitted jobs keep their slots (their Pods stay Pending), so
// nothing but the slot freed on purpose below can let the waiting job start.
let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('admission-wake', { slots: 0 });
});
afterAll(async () => {
  await s?.stop();
});

const model = 'genjobs/reference-image/text-to-image';
/** Admitted: its first Pod made (the job stays pending until the Pod runs, which it never does here). */
const admitted = async (id: string) =>
  (
    await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `genjobs.io/job=${id}`,
    })
  ).items.length > 0;
/** The default catalog's maxConcurrency of the model. */
const SLOTS = 4;

it('a slot freed by another writer (a running job deleted) starts the next waiting job', async () => {
  const key = await s.account({ name: 'acme', plan: 'enterprise' });
  const ids: string[] = [];
  for (let i = 0; i <= SLOTS; i++) {
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model, input: { prompt: `${i}` } },
    });
    expect(res.status).toBe(200);
    ids.push((await res.json()).jobId);
  }
  const last = ids.at(-1)!;
  await eventually(
    async () => (await Promise.all(ids.slice(0, SLOTS).map(admitted))).every(Boolean),
    30_000,
    'the first jobs hold every slot',
  );
  await eventually(
    async () =>
      (await s.r.jobs.get(last))?.status?.conditions?.some(
        (c) => c.type === 'Admitted' && c.reason === 'WaitingForCapacity',
      ),
    30_000,
    'the last job waits for capacity',
  );
  // What an operator sees of it: every slot held, one job waiting, its next look a day off.
  const state = async () =>
    (await (await fetch(`${s.controller.url}/debug/state`)).json()) as ControllerState;
  // The apiserver answered; the controller's cache may show the last start a moment later.
  await eventually(
    async () => (await state()).admission[model]?.starting === 0,
    5_000,
    'the controller cache shows every start',
  );
  const before = await state();
  expect(before.leader).toBe(true);
  expect(before.admission[model]).toEqual({ slots: SLOTS, holding: SLOTS, starting: 0, waiting: 1 });
  expect(before.queues.GenerationJob?.lastDueInMs).toBeGreaterThan(3_600_000);
  expect(before.informers.GenerationJob).toMatchObject({ synced: true, objects: SLOTS + 1 });
  // Not this controller's write: an operator's delete (or a former leader's last write).
  await s.r.jobs.delete(ids[0]!);
  await eventually(() => admitted(last), 15_000, 'the waiting job admitted into the freed slot');
  await eventually(
    async () => (await state()).admission[model]?.waiting === 0,
    5_000,
    'no job waiting in the state view',
  );
});

it('a job whose Pod waits for a node is pending (spec 3.1), and a cancel refunds it and removes the Pod', async () => {
  const key = await s.account({ name: 'patient', plan: 'pro', grantMicroCents: 10_000_000 });
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: {
      model: 'genjobs/reference-image/edit-image',
      input: { prompt: 'x', image: 'https://example.com/a.png' },
    },
  });
  expect(res.status).toBe(200);
  const { jobId, costMicroCents } = await res.json();
  await eventually(() => admitted(jobId), 15_000, 'its Pod made');
  const record = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
  expect([record.status, record.progress]).toEqual(['pending', 0]);
  const cancel = await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key });
  expect(cancel.status).toBe(200);
  expect(await cancel.json()).toEqual({ jobId, status: 'cancelled', refundedMicroCents: costMicroCents });
  await eventually(async () => !(await admitted(jobId)), 15_000, 'its Pod deleted');
  const account = await (await s.call('/v1/account', { key })).json();
  expect(account.spentMicroCents).toBe(0);
  expect(account.balanceMicroCents + account.heldMicroCents).toBe(10_000_000);
});

it("another account's job takes the next free slot ahead of one account's backlog, and its queue position says so", async () => {
  // Its own variant: the jobs above hold the image model's slots.
  const video = 'genjobs/reference-video/text-to-video';
  const heavy = await s.account({ name: 'heavy', plan: 'enterprise', grantMicroCents: 1_000_000_000 });
  const light = await s.account({ name: 'light', plan: 'pro' });
  const submit = async (key: string, i: number) => {
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: video, input: { prompt: `${i}`, duration: 4 } },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { jobId: string; queuePosition?: number };
  };
  const backlog: string[] = [];
  for (let i = 0; i < SLOTS + 5; i++) backlog.push((await submit(heavy, i)).jobId);
  await eventually(
    async () => (await Promise.all(backlog.slice(0, SLOTS).map(admitted))).every(Boolean),
    30_000,
    "the heavy account's first jobs hold every slot",
  );
  const mine = await submit(light, 0);
  const position = async (key: string, id: string) =>
    ((await (await s.call(`/v1/jobs/${id}`, { key })).json()) as { queuePosition?: number }).queuePosition;
  // The api cannot tell which of the heavy account's pending jobs hold a slot (their Pods
  // wait for a node, and no write says so): it counts its oldest job, of the same turn and
  // submitted first, ahead of the light one; under first come, first served it was 9.
  expect(await position(light, mine.jobId)).toBe(1);
  // The light job may be a moment from the api's cache (its own GET above read the
  // apiserver): the heavy job's position counts it once the cache has it.
  await eventually(
    async () => (await position(heavy, backlog[SLOTS]!)) === SLOTS + 1,
    5_000,
    'the light job counted',
  );
  // One slot frees: the light account's job takes it, the backlog keeps waiting.
  await s.r.jobs.delete(backlog[0]!);
  await eventually(() => admitted(mine.jobId), 15_000, 'the light job admitted into the freed slot');
  await new Promise((r) => setTimeout(r, 500));
  expect(await Promise.all(backlog.slice(SLOTS).map(admitted))).toEqual(
    backlog.slice(SLOTS).map(() => false),
  );
});
