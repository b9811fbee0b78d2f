import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/main.ts';
import { systemResolver } from '../../src/webhooks/address.ts';
import { eventually } from '../support/cluster.ts';
import { startTestController } from '../support/controller.ts';
import { startTestApi, type TestService } from '../support/service.ts';
import { finish, IMAGE, submit, webhookOf } from './jobs.ts';
import { makeTestTls, type Receiver, startReceiver } from './receiver.ts';

let svc: TestService;
let key: string;
let receiver: Receiver;
let controller: RunningController;

beforeAll(async () => {
  // The production policy: private targets are not allowed (GENJOBS_WEBHOOK_ALLOW_PRIVATE unset).
  svc = await startTestApi('webhooks-ssrf');
  key = await svc.account({ name: 'acme' });
  const tls = await makeTestTls();
  receiver = await startReceiver(tls);
  // The receiver's CA is trusted: only the address policy stands between it and a delivery.
  // hooks.test stands for a public-looking name whose DNS answers loopback (DNS rebinding).
  controller = await startTestController(svc, {
    webhookCa: tls.ca,
    webhookResolve: async (host) =>
      host === 'hooks.test' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(host),
  });
});
afterAll(async () => {
  await controller?.stop();
  await receiver?.close();
  await svc?.stop();
});

describe('webhook targets', () => {
  it.each([
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback on a port', 'https://127.0.0.1:8443/hook'],
    ['private', 'https://10.0.0.1/hook'],
    ['the cloud metadata service', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['the loopback name', 'https://localhost:8443/hook'],
    ['plain http', 'http://hooks.example.com/hook'],
    ['credentials in it', 'https://user:secret@hooks.example.com/hook'],
  ])('%s (%s) is refused at submit with 422 INVALID_INPUT and no job is made', async (_, webhookUrl) => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: 'x' }, webhookUrl },
    });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'INVALID_INPUT', errors: [{ pointer: '/webhookUrl' }] });
    // Refused before any money moved: no job, no reservation.
    expect((await svc.r.jobs.list()).items).toEqual([]);
    expect((await svc.r.accounts.get('acme'))?.status?.reservations ?? {}).toEqual({});
  });

  it('a name that resolves to loopback is refused at delivery, and recorded as such', async () => {
    const jobId = await submit(svc, key, `https://hooks.test:${receiver.port}/hook`);
    await finish(svc, jobId, 'completed');
    const webhook = await eventually(async () => {
      const w = await webhookOf(svc, jobId);
      return w?.state === 'failed' && w;
    });
    expect(webhook.attempts).toBe(1);
    expect(webhook.lastResult).toBe('refused: hooks.test does not resolve to a public address');
    expect(receiver.received).toHaveLength(0);
    const metric = await controller.metrics.webhookDeliveries.get();
    expect(metric.values.find((v) => v.labels.result === 'refused')?.value).toBe(1);
    // The Warning Event is written beside the status, not before it: it may land a moment later.
    const message = await eventually(async () => {
      const events = await svc.kube.core.listNamespacedEvent({
        namespace: svc.kube.namespace,
        fieldSelector: `involvedObject.name=${jobId},reason=WebhookFailed`,
      });
      return events.items[0]?.message;
    });
    expect(message).toMatch(/refused/);
  });
});
