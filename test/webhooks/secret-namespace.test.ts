import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookSecrets } from '../../src/accounts/webhook-secret.ts';
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

  expect(await shownSecret('acme')).toBe(current);
});

it("a new account of a deleted one's name gets a webhook secret of its own, not the deleted one's", async () => {
  const old = (await svc.r.accounts.get('acme'))!;
  const before = (await getSecret(secrets, 'genjobs-webhook-acme'))!;
  expect(before.metadata?.annotations?.['genjobs.io/account-uid']).toBe(old.metadata.uid);
  const oldSecret = Buffer.from(before.data?.current ?? '', 'base64').toString();
  // kubectl delete account acme; kubectl create: the Secret, in a namespace of its own, stays.
  await svc.r.accounts.delete('acme');
  const made = await svc.r.accounts.create({
    metadata: { name: 'acme' },
    spec: { plan: 'pro', grantedMicroCents: 1 },
  });
  const shown = await shownSecret('acme');
  expect(shown).toMatch(/^whsec_/);
  expect(shown).not.toBe(oldSecret);
  const after = (await getSecret(secrets, 'genjobs-webhook-acme'))!;
  expect(after.metadata?.annotations?.['genjobs.io/account-uid']).toBe(made.metadata.uid);
  // Not kept as the previous one either: the deleted account's secret signs nothing more.
  expect(after.data?.previous).toBeUndefined();
  expect(await shownSecret('acme')).toBe(shown);
});

it('a rotation prints the new secret alone on stdout, for $(…); its note goes to stderr', async () => {
  await svc.admin.createAccount({ name: 'rotor', plan: 'pro', grantMicroCents: 0 });
  const first = await shownSecret('rotor');
  const rotated = await secretCommand('rotor', '--rotate');
  expect(rotated.stdout).toMatch(/^whsec_[A-Za-z0-9+/=]+\n$/);
  expect(rotated.stdout.trim()).not.toBe(first);
  expect(rotated.stderr).toContain('New secret. Webhooks are signed with both it and the previous one');
  // Shown again during the overlap: still the current one alone; the previous one is a note.
  const again = await secretCommand('rotor');
  expect(again.stdout.trim()).toBe(rotated.stdout.trim());
  expect(again.stderr).toContain(`The previous secret also signs webhooks`);
  expect(again.stderr).toContain(first);
});

it("another install given the same secret namespace neither signs with, replaces, rotates nor deletes this one's Secrets", async () => {
  const before = (await getSecret(secrets, 'genjobs-webhook-acme'))!;
  expect(before.metadata?.annotations?.['genjobs.io/install-namespace']).toBe(svc.kube.namespace);
  // Its own account acme (another uid): without the mark it took this Secret for a deleted namesake's.
  const other = await testNamespace('other-install');
  const theirs = new WebhookSecrets({ kube: other, namespace: secrets.namespace });
  const refusal = new RegExp(
    `genjobs-webhook-acme in namespace ${secrets.namespace} belongs to the genjobs install in namespace ${svc.kube.namespace}, not this one \\(${other.namespace}\\); give each install its own webhooks.secretNamespace`,
  );
  await expect(theirs.signingSecrets('acme', { name: 'acme', uid: 'another-uid' })).rejects.toThrow(refusal);
  await expect(theirs.rotate('acme')).rejects.toThrow(refusal);
  await expect(theirs.get('acme')).rejects.toThrow(refusal);
  await expect(theirs.delete('acme')).rejects.toThrow(refusal);
  const after = (await getSecret(secrets, 'genjobs-webhook-acme'))!;
  expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  // Its own accounts' Secrets it makes and marks as its own, beside this install's.
  const made = await theirs.ensure('zeta', { name: 'zeta', uid: 'zeta-uid' });
  expect(made.current).toMatch(/^whsec_/);
  expect((await getSecret(secrets, 'genjobs-webhook-zeta'))?.metadata?.annotations).toMatchObject({
    'genjobs.io/install-namespace': other.namespace,
  });
});

/** What `genjobs accounts webhook-secret NAME` prints. */
async function shownSecret(account: string): Promise<string> {
  return (await secretCommand(account)).stdout.trim();
}

/** `genjobs accounts webhook-secret NAME [args]`, its stdout and stderr. */
async function secretCommand(
  account: string,
  ...args: string[]
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    [
      'src/cli.ts',
      '--kubeconfig',
      kubeconfigPath(),
      '-n',
      svc.kube.namespace,
      'accounts',
      'webhook-secret',
      account,
      ...args,
    ],
    { env: { ...process.env, NODE_NO_WARNINGS: '1', GENJOBS_WEBHOOK_SECRET_NAMESPACE: secrets.namespace } },
  );
}
