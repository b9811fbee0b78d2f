import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/main.ts';
import type { Kube } from '../../src/k8s/client.ts';
import { getSecret } from '../../src/k8s/secrets.ts';
import { eventually, kubeconfigPath, testNamespace } from '../support/cluster.ts';
import { startTestController } from '../support/controller.ts';
import { startTestApi, type TestService } from '../support/service.ts';
import { finish, submit } from './jobs.ts';
import { makeTestTls, type Receiver, startReceiver } from './receiver.ts';

let svc: TestService;
let secrets: Kube;
let key: string;
let receiver: Receiver;
let controller: RunningController;

beforeAll(async () => {
  svc = await startTestApi('webhook-secret-ns', { GENJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' });
  secrets = await testNamespace('webhook-secrets');
  key = await svc.account({ name: 'acme' });
  const tls = await makeTestTls();
  receiver = await startReceiver(tls);
  controller = await startTestController(svc, {
    webhookCa: tls.ca,
    env: { GENJOBS_WEBHOOK_SECRET_NAMESPACE: secrets.namespace },
  });
});
afterAll(async () => {
  await controller?.stop();
  await receiver?.close();
  await svc?.stop();
});

it('with GENJOBS_WEBHOOK_SECRET_NAMESPACE the secrets live there, unowned, and the admin command finds them', async () => {
  const jobId = await submit(svc, key, `${receiver.url}/hook`);
  await finish(svc, jobId, 'completed');
  const [request] = await eventually(() => receiver.received.length > 0 && receiver.received);

  const stored = await getSecret(secrets, 'genjobs-webhook-acme');
  expect(stored).toBeDefined();
  // An owner in another namespace counts as absent: the garbage collector would delete it.
  expect(stored?.metadata?.ownerReferences).toBeUndefined();
  expect(await getSecret(svc.kube, 'genjobs-webhook-acme')).toBeUndefined();
  const current = Buffer.from(stored?.data?.current ?? '', 'base64').toString();
  expect(new Webhook(current).verify(request!.body, request!.headers)).toMatchObject({
    type: 'job.completed',
  });

  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      'src/cli.ts',
      '--kubeconfig',
      kubeconfigPath(),
      '-n',
      svc.kube.namespace,
      'accounts',
      'webhook-secret',
      'acme',
    ],
    { env: { ...process.env, NODE_NO_WARNINGS: '1', GENJOBS_WEBHOOK_SECRET_NAMESPACE: secrets.namespace } },
  );
  expect(stdout.trim()).toBe(current);
});
