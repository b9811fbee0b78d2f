import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSecrets } from '../../src/accounts/webhook-secret.ts';
import type { RunningController } from '../../src/controller/main.ts';
import { MERGE_PATCH } from '../../src/k8s/client.ts';
import { getSecret } from '../../src/k8s/secrets.ts';
import { eventually, kubeconfigPath } from '../support/cluster.ts';
import { componentValidator } from '../support/contract.ts';
import { startTestController } from '../support/controller.ts';
import { startTestApi, type TestService } from '../support/service.ts';
import { finish, submit, webhookOf } from './jobs.ts';
import { makeTestTls, type Received, type Receiver, startReceiver } from './receiver.ts';

let svc: TestService;
let key: string;
let receiver: Receiver;
let controller: RunningController | undefined;
let ca: string;
const SCALE = 0.001; // the schedule's 5 s, 5 min, 30 min become 5 ms, 300 ms, 1.8 s

async function startController() {
  controller = await startTestController(svc, { webhookCa: ca, webhookScheduleScale: SCALE });
}

beforeAll(async () => {
  // The receiver is on loopback: private targets allowed, as for a private deployment.
  svc = await startTestApi('webhooks', { GENJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' });
  key = await svc.account({ name: 'acme' });
  const tls = await makeTestTls();
  ca = tls.ca;
  receiver = await startReceiver(tls);
  await startController();
});
afterAll(async () => {
  await controller?.stop();
  await receiver?.close();
  await svc?.stop();
});

const execFileP = promisify(execFile);
/** Runs the admin command as an operator would. */
async function genjobs(...args: string[]): Promise<string> {
  const { stdout } = await execFileP(
    process.execPath,
    ['src/cli.ts', '--kubeconfig', kubeconfigPath(), '--namespace', svc.kube.namespace, ...args],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  return stdout;
}

const isWebhookEvent = componentValidator('WebhookEvent');

/** Verifies a delivery (the standardwebhooks library) and holds its body to the document's WebhookEvent. */
function verify(secret: string, r: Received) {
  const event = new Webhook(secret).verify(r.body, r.headers);
  if (!isWebhookEvent(event)) throw new Error(`not a WebhookEvent: ${JSON.stringify(isWebhookEvent.errors)}`);
  return event as { type: string; timestamp: string; data: unknown };
}

async function jobRecord(jobId: string) {
  return (await svc.call(`/v1/jobs/${jobId}`, { key })).json();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function deliveries(result: string): Promise<number> {
  const metric = await controller!.metrics.webhookDeliveries.get();
  return metric.values.find((v) => v.labels.result === result)?.value ?? 0;
}

describe('webhooks', () => {
  it('the admin command shows the account secret, made on first use, and the same one again', async () => {
    const first = (await genjobs('accounts', 'webhook-secret', 'acme')).trim();
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await genjobs('accounts', 'webhook-secret', 'acme')).trim()).toBe(first);
    const json = JSON.parse(await genjobs('accounts', 'webhook-secret', 'acme', '-o', 'json'));
    expect(json).toEqual({ account: 'acme', current: first });
    // Kept in a Secret of the service's namespace, owned by the Account (deleted with it).
    const stored = await getSecret(svc.kube, 'genjobs-webhook-acme');
    const account = await svc.r.accounts.get('acme');
    expect(stored?.metadata?.ownerReferences).toEqual([
      { apiVersion: 'genjobs.io/v1alpha1', kind: 'Account', name: 'acme', uid: account?.metadata.uid },
    ]);
    expect(Buffer.from(stored?.data?.current ?? '', 'base64').toString()).toBe(first);
  });

  it('a completed job is announced to an HTTPS receiver, signed per Standard Webhooks, exactly once', async () => {
    const secret = (await genjobs('accounts', 'webhook-secret', 'acme')).trim();
    const successes = await deliveries('success');
    const jobId = await submit(svc, key, `${receiver.url}/hooks/completed`);
    await sleep(200);
    expect(receiver.to('/hooks/completed')).toHaveLength(0); // nothing before the job finishes
    await finish(svc, jobId, 'completed');

    const [request] = await eventually(
      () => receiver.to('/hooks/completed').length > 0 && receiver.to('/hooks/completed'),
    );
    const payload = verify(secret, request!);
    const record = await jobRecord(jobId);
    expect(payload).toEqual({ type: 'job.completed', timestamp: record.completedAt, data: record });
    expect(record).toMatchObject({ status: 'completed', progress: 100 });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) * 1000 - Date.now())).toBeLessThan(10_000);

    const webhook = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.state === 'delivered' && w;
    });
    expect(webhook).toMatchObject({
      id: request!.headers['webhook-id'],
      attempts: 1,
      lastResult: 'HTTP 200',
    });
    expect(webhook.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhook.deliveredAt).toBeTruthy();
    await sleep(300);
    expect(receiver.to('/hooks/completed')).toHaveLength(1);
    expect(await deliveries('success')).toBe(successes + 1);
  });

  it('a failed job is announced as job.failed with its error', async () => {
    const secret = (await genjobs('accounts', 'webhook-secret', 'acme')).trim();
    const jobId = await submit(svc, key, `${receiver.url}/hooks/failed`);
    await finish(svc, jobId, 'failed');
    const [request] = await eventually(
      () => receiver.to('/hooks/failed').length > 0 && receiver.to('/hooks/failed'),
    );
    const payload = verify(secret, request!);
    expect(payload).toMatchObject({
      type: 'job.failed',
      data: { jobId, status: 'failed', progress: 0, error: { code: 'GENERATION_FAILED' }, output: null },
    });
  });

  it('a receiver that fails three times then succeeds sees one webhook-id; one success is recorded', async () => {
    const secret = (await genjobs('accounts', 'webhook-secret', 'acme')).trim();
    receiver.on('/hooks/flaky', (_req, n) => ({ status: n < 3 ? 503 : 204 }));
    const jobId = await submit(svc, key, `${receiver.url}/hooks/flaky`);
    await finish(svc, jobId, 'completed');

    // After the third failure the next try is 30 min (scaled: 1.8 s) away: a retry is pending.
    await eventually(async () => (await webhookOf(svc, jobId))?.attempts === 3, 10_000);
    const metrics = await (await fetch(`${controller!.url}/metrics`)).text();
    expect(metrics).toMatch(/^genjobs_webhook_retries_pending 1$/m);
    expect(await webhookOf(svc, jobId)).toMatchObject({ state: 'pending', lastResult: 'HTTP 503' });

    const webhook = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.state === 'delivered' && w;
    }, 15_000);
    const requests = receiver.to('/hooks/flaky');
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([webhook.id]));
    for (const r of requests) expect(verify(secret, r).type).toBe('job.completed');
    // Each attempt is signed anew: one body, fresh timestamps.
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expect(webhook).toMatchObject({ state: 'delivered', attempts: 4, lastResult: 'HTTP 204' });
    await sleep(500);
    expect(receiver.to('/hooks/flaky')).toHaveLength(4);
  });

  it("one account's stalling receiver holds a quarter of the delivery slots; others' webhooks go on", async () => {
    const flood = await svc.account({ name: 'flood' });
    receiver.on('/hooks/stall', () => ({ status: 200, delayMs: 6_000 }));
    const stalled = await Promise.all(
      Array.from({ length: 6 }, () => submit(svc, flood, `${receiver.url}/hooks/stall`)),
    );
    await Promise.all(stalled.map((id) => finish(svc, id, 'failed')));
    // The default 16 slots: 4 for the account, whose other two webhooks wait their turn.
    await eventually(() => receiver.to('/hooks/stall').length >= 4, 10_000, 'four stalled deliveries');
    await sleep(1_000);
    expect(receiver.to('/hooks/stall')).toHaveLength(4);
    const jobId = await submit(svc, key, `${receiver.url}/hooks/beside-stall`);
    await finish(svc, jobId, 'completed');
    await eventually(() => receiver.to('/hooks/beside-stall').length === 1, 4_000, 'the other account');
    expect(receiver.to('/hooks/stall')).toHaveLength(4);
    // Each stalled answer frees a slot for the account's next one.
    await eventually(() => receiver.to('/hooks/stall').length === 6, 20_000, 'the rest of the account');
  });

  it('410 Gone stops the retries at once, with a Warning on the job', async () => {
    receiver.on('/hooks/gone', () => ({ status: 410 }));
    const jobId = await submit(svc, key, `${receiver.url}/hooks/gone`);
    await finish(svc, jobId, 'completed');
    const webhook = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.state === 'failed' && w;
    });
    expect(webhook).toMatchObject({ attempts: 1, lastResult: 'HTTP 410' });
    await sleep(300);
    expect(receiver.to('/hooks/gone')).toHaveLength(1);
    const events = await svc.kube.core.listNamespacedEvent({
      namespace: svc.kube.namespace,
      fieldSelector: `involvedObject.name=${jobId},reason=WebhookFailed`,
    });
    expect(events.items[0]?.message).toContain('HTTP 410');
    // Counted, for an alert: the notification is lost.
    const given = await controller!.metrics.webhooksGivenUp.get();
    expect(given.values.find((v) => v.labels.result === 'http_error')?.value).toBeGreaterThanOrEqual(1);
  });

  it("waits, said on the job, while the account's signing Secret cannot be made (a full quota), then delivers", async () => {
    const quotaKey = await svc.account({ name: 'quota-co' });
    // No quota controller runs here: its usage is written by hand, as it reports a full quota.
    await svc.kube.core.createNamespacedResourceQuota({
      namespace: svc.kube.namespace,
      body: { metadata: { name: 'secrets' }, spec: { hard: { secrets: '1' } } },
    });
    const removeQuota = () =>
      svc.kube.core
        .deleteNamespacedResourceQuota({ name: 'secrets', namespace: svc.kube.namespace })
        .catch(() => undefined);
    try {
      await svc.kube.core.patchNamespacedResourceQuotaStatus(
        {
          name: 'secrets',
          namespace: svc.kube.namespace,
          body: { status: { hard: { secrets: '1' }, used: { secrets: '1' } } },
        },
        MERGE_PATCH,
      );
      const jobId = await submit(svc, quotaKey, `${receiver.url}/hooks/quota`);
      await finish(svc, jobId, 'completed');
      const [event] = await eventually(async () => {
        const { items } = await svc.kube.core.listNamespacedEvent({
          namespace: svc.kube.namespace,
          fieldSelector: `involvedObject.name=${jobId},reason=WebhookSecretRefused`,
        });
        return items.length > 0 && items;
      });
      expect(event?.type).toBe('Warning');
      expect(event?.message).toMatch(/refused the Secret that signs account quota-co's webhooks \(403\)/);
      expect(receiver.to('/hooks/quota')).toHaveLength(0);
      await removeQuota();
      const [request] = await eventually(
        () => receiver.to('/hooks/quota').length > 0 && receiver.to('/hooks/quota'),
        30_000,
      );
      const secret = (await genjobs('accounts', 'webhook-secret', 'quota-co')).trim();
      expect(verify(secret, request!).type).toBe('job.completed');
    } finally {
      await removeQuota();
    }
  });

  it('does not follow a redirect, even to a receiver it may reach', async () => {
    receiver.on('/hooks/redirect', () => ({
      status: 307,
      headers: { location: `${receiver.url}/hooks/redirected` },
    }));
    const jobId = await submit(svc, key, `${receiver.url}/hooks/redirect`);
    await finish(svc, jobId, 'completed');
    await eventually(async () => (await webhookOf(svc, jobId))?.lastResult === 'HTTP 307');
    expect(receiver.to('/hooks/redirected')).toHaveLength(0);
  });

  it('a controller restart neither loses a pending retry nor repeats a delivered webhook', async () => {
    // The first answer asks for a pause (Retry-After 3000 s; scaled: 3 s), time to restart.
    receiver.on('/hooks/restart', (_req, n) =>
      n === 0 ? { status: 503, headers: { 'retry-after': '3000' } } : { status: 200 },
    );
    const jobId = await submit(svc, key, `${receiver.url}/hooks/restart`);
    await finish(svc, jobId, 'completed');
    const pending = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.attempts === 1 && w;
    });
    expect(pending).toMatchObject({ state: 'pending', lastResult: 'HTTP 503' });
    const due = Date.parse(pending.nextAttemptAt ?? '');
    expect(due - Date.now()).toBeGreaterThan(1_500);

    // The retry now exists only in the job's status.
    await controller!.stop();
    controller = undefined;
    const settled = ['/hooks/completed', '/hooks/failed', '/hooks/flaky', '/hooks/gone'];
    const sent = () => settled.map((path) => receiver.to(path).length);
    const before = sent();
    await startController();

    const webhook = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.state === 'delivered' && w;
    }, 10_000);
    expect(webhook.attempts).toBe(2);
    const requests = receiver.to('/hooks/restart');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at).toBeGreaterThanOrEqual(due - 50);
    expect(requests[0]!.headers['webhook-id']).toBe(requests[1]!.headers['webhook-id']);
    await sleep(500);
    // Nothing settled before (the earlier tests' jobs) was sent again by the new controller.
    expect(sent()).toEqual(before);
  });

  it('after a rotation both the new and the previous secret verify, until the overlap ends', async () => {
    const old = (await genjobs('accounts', 'webhook-secret', 'acme')).trim();
    const rotated = JSON.parse(await genjobs('accounts', 'webhook-secret', 'acme', '--rotate', '-o', 'json'));
    expect(rotated.previous).toBe(old);
    expect(rotated.current).not.toBe(old);
    expect(Date.parse(rotated.previousUntil) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect((await genjobs('accounts', 'webhook-secret', 'acme')).split('\n')[0]).toBe(rotated.current);

    const jobId = await submit(svc, key, `${receiver.url}/hooks/rotated`);
    await finish(svc, jobId, 'completed');
    const [request] = await eventually(
      () => receiver.to('/hooks/rotated').length > 0 && receiver.to('/hooks/rotated'),
    );
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.current, request!).type).toBe('job.completed');
    expect(verify(old, request!).type).toBe('job.completed');

    // The overlap over (the controller's clock says a day passed), only the new one signs.
    const secrets = new WebhookSecrets({ kube: svc.kube, now: () => Date.now() + 25 * 3_600_000 });
    expect(await secrets.signingSecrets('acme')).toEqual([rotated.current]);
  });
});
