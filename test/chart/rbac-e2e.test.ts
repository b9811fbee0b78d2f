import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { AccountAdmin } from '../../src/accounts/admin.ts';
import { WebhookSecrets, webhookSecretName } from '../../src/accounts/webhook-secret.ts';
import type { Runtime } from '../../src/catalog/index.ts';
import { MODEL_CREDENTIALS_LABEL, ModelCredentials } from '../../src/controller/job/credentials.ts';
import { buildWorkerPod, JOB_LABEL } from '../../src/controller/job/pod.ts';
import { type Kube, MERGE_PATCH } from '../../src/k8s/client.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';
import { statusCode } from '../../src/k8s/errors.ts';
import { createPod } from '../../src/k8s/pods.ts';
import { resources } from '../../src/k8s/resources.ts';
import { API_VERSION, type GenerationJob } from '../../src/k8s/types.ts';
import { eventually, kubeconfigPath } from '../support/cluster.ts';
import { tokenKube } from '../support/rbac.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { KUBECTL, render, run } from './helm.ts';

let s: TestStack;
let apiKube: Kube;
let controllerKube: Kube;
/** The cluster-scoped objects installed, `Kind/name`, for afterAll to remove. */
let policies: string[] = [];

/** The worker Pods' image and ServiceAccount as the chart renders them, for the controller's settings. */
const WORKER = { image: 'genjobs-test-worker:e2e', serviceAccount: 'genjobs-worker' };
const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'];

/**
 * Installs the chart's ServiceAccounts, Roles and RoleBindings, and the policy on the Pods the
 * controller creates (nothing else), into the namespace.
 */
async function installChartRbac(admin: Kube): Promise<void> {
  const { objects } = await render(
    {
      worker: {
        modelCredentialSecrets: ['acme-token', 'unlabelled-token'],
        image: { repository: 'genjobs-test-worker', tag: 'e2e' },
      },
    },
    { namespace: admin.namespace },
  );
  const rbac = objects.filter((o) =>
    ['ServiceAccount', 'Role', 'RoleBinding', ...POLICY_KINDS].includes(o.kind),
  );
  policies = objects.filter((o) => POLICY_KINDS.includes(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`);
  expect(policies).toHaveLength(4);
  expect(rbac.map((o) => o.kind)).toContain('Role');
  await ensureNamespace(admin, `${admin.namespace}-webhooks`);
  const r = await run(KUBECTL, ['apply', '-f', '-'], {
    input: rbac.map((o) => `---\n${stringify(o)}`).join(''),
    env: { KUBECONFIG: kubeconfigPath() },
  });
  if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
}

beforeAll(async () => {
  s = await startTestStack('rbac-e2e', {
    env: {
      GENJOBS_LEADER_ELECTION: 'true',
      GENJOBS_WORKER_IMAGE: WORKER.image,
      GENJOBS_WORKER_SERVICE_ACCOUNT: WORKER.serviceAccount,
    },
    apiIdentity: async (admin) => {
      await installChartRbac(admin);
      apiKube = await tokenKube(admin, 'genjobs-api');
      return apiKube;
    },
    controllerIdentity: async (admin) => {
      controllerKube = await tokenKube(admin, 'genjobs-controller');
      return controllerKube;
    },
  });
}, 180_000);
afterAll(async () => {
  await s?.stop();
  if (policies.length)
    await run(KUBECTL, ['delete', '--ignore-not-found', ...policies], {
      env: { KUBECONFIG: kubeconfigPath() },
    });
});

async function denied(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    return statusCode(err) === 403;
  }
}

describe('the service under the chart RBAC', () => {
  it('runs the whole flow with the api and controller as their chart ServiceAccounts', async () => {
    const key = await s.account({ name: 'acme' });
    const submit = (prompt: string) =>
      s.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: 'genjobs/reference-image/text-to-image', input: { prompt } },
      });
    const { jobId } = await (await submit('under rbac')).json();
    let job: { status: string } = { status: 'pending' };
    for (let i = 0; i < 300 && job.status !== 'completed' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      job = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
    }
    expect(job.status).toBe('completed');
    const presign = await s.call('/v1/uploads/presign', {
      method: 'POST',
      key,
      json: { filename: 'a.png', contentType: 'image/png' },
    });
    expect(presign.status).toBe(200);
    expect(s.controller.isLeader()).toBe(true);
  });

  it('refuses what is outside their rights: the api creates no Pods, the controller reads no foreign Secret', async () => {
    const pod = { metadata: { name: 'intruder' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    expect(await denied(createPod(apiKube, pod))).toBe(true);
    await s.kube.core.createNamespacedSecret({
      namespace: s.kube.namespace,
      body: { metadata: { name: 'database' }, stringData: { password: 'x' } },
    });
    expect(
      await denied(
        controllerKube.core.readNamespacedSecret({ name: 'database', namespace: s.kube.namespace }),
      ),
    ).toBe(true);
    expect(await denied(controllerKube.core.listNamespacedSecret({ namespace: s.kube.namespace }))).toBe(
      true,
    );
    expect(
      await denied(apiKube.core.readNamespacedSecret({ name: 'database', namespace: s.kube.namespace })),
    ).toBe(true);
  });
});

describe('the Pods the controller may create', () => {
  /** The apiserver's refusal (403) of a dry-run create by the controller, or undefined when admitted. */
  async function refusal(pod: V1Pod): Promise<string | undefined> {
    try {
      await controllerKube.core.createNamespacedPod({
        namespace: s.kube.namespace,
        body: pod,
        dryRun: 'All',
      });
      return undefined;
    } catch (err) {
      if (statusCode(err) !== 403) throw err;
      return String((err as { body?: unknown }).body);
    }
  }

  /** Sets the namespace's Pod Security enforcement level. */
  async function podSecurity(level: 'privileged' | 'restricted'): Promise<void> {
    await s.kube.core.patchNamespace(
      {
        name: s.kube.namespace,
        body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': level } } },
      },
      MERGE_PATCH,
    );
  }

  it('are worker Pods only: no other ServiceAccount or token, no Secret but the listed, the worker image and labels', async () => {
    const job = {
      apiVersion: API_VERSION,
      kind: 'GenerationJob',
      metadata: { name: 'j1', uid: 'uid-j1' },
      spec: {
        account: 'acme',
        model: 'genjobs/reference-image/text-to-image',
        version: 'v1',
        input: { prompt: 'x' },
        costMicroCents: 1,
      },
    } as GenerationJob;
    const runtime = {
      type: 'http',
      url: 'https://models.example/v1',
      authSecretRef: { name: 'acme-token', key: 'token' },
      maxConcurrency: 1,
      timeoutSeconds: 60,
      typicalSeconds: 5,
    } as Runtime;
    const worker = buildWorkerPod(job, 1, runtime, {
      image: WORKER.image,
      command: ['genjobs', 'worker'],
      serviceAccountName: WORKER.serviceAccount,
      blobUrl: 'http://genjobs-api:8080/files',
      blobPublicUrl: 'https://genjobs.example/files',
      blobGrant: 'g',
    }) as V1Pod;
    const spec = worker.spec!;
    const container = spec.containers[0]!;
    const as = (change: Partial<V1PodSpec>, c: Partial<V1Container> = {}): V1Pod => ({
      ...worker,
      spec: { ...spec, ...change, containers: [{ ...container, ...c }] },
    });
    const admin = as({ serviceAccountName: 'genjobs-admin', automountServiceAccountToken: true });
    // In force once the apiserver has loaded the policy.
    await eventually(async () => (await refusal(admin)) !== undefined, 15_000, 'the policy in force');
    expect(await refusal(worker)).toBeUndefined();
    expect(await refusal(admin)).toMatch(/runs as ServiceAccount genjobs-worker without its token/);
    expect(await refusal(as({ automountServiceAccountToken: true }))).toMatch(/without its token/);
    const secretVolume = { name: 'db', secret: { secretName: 'genjobs-archive' } };
    expect(await refusal(as({ volumes: [...(spec.volumes ?? []), secretVolume] }))).toMatch(
      /emptyDir volumes only/,
    );
    const read = (name: string) => ({ name: 'X', valueFrom: { secretKeyRef: { name, key: 'k' } } });
    expect(await refusal(as({}, { env: [...(container.env ?? []), read('genjobs-blob')] }))).toMatch(
      /only the Secrets of worker.modelCredentialSecrets/,
    );
    expect(await refusal(as({}, { envFrom: [{ secretRef: { name: 'genjobs-blob' } }] }))).toMatch(
      /only the Secrets of worker.modelCredentialSecrets/,
    );
    expect(
      await refusal(as({}, { env: [...(container.env ?? []), read('unlabelled-token')] })),
    ).toBeUndefined();
    expect(await refusal(as({}, { image: 'busybox' }))).toMatch(
      /runs the worker image genjobs-test-worker:e2e/,
    );
    // Nothing of its node, whatever the namespace's Pod Security level: with "restricted"
    // lifted (the stack sets it), the policy alone refuses.
    await podSecurity('privileged');
    expect(await refusal(as({ hostNetwork: true }))).toMatch(/shares no namespace or port with its node/);
    expect(await refusal(as({ hostPID: true }))).toMatch(/shares no namespace or port with its node/);
    expect(await refusal(as({ nodeName: 'node-1' }))).toMatch(/placed by the scheduler/);
    expect(await refusal(as({}, { ports: [{ containerPort: 80, hostPort: 80 }] }))).toMatch(
      /shares no namespace or port/,
    );
    const sc = container.securityContext!;
    const unprivileged = /runs as non-root, unprivileged, with every capability dropped/;
    const { allowPrivilegeEscalation: _no, ...escalating } = sc; // the apiserver refuses "privileged" beside it
    expect(await refusal(as({}, { securityContext: { ...escalating, privileged: true } }))).toMatch(
      unprivileged,
    );
    expect(await refusal(as({}, { securityContext: { ...sc, runAsUser: 0 } }))).toMatch(unprivileged);
    expect(await refusal(as({ securityContext: { ...spec.securityContext, runAsNonRoot: false } }))).toMatch(
      unprivileged,
    );
    expect(
      await refusal(
        as({}, { securityContext: { ...sc, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } } }),
      ),
    ).toMatch(unprivileged);
    expect(await refusal(as({}, { securityContext: { ...sc, allowPrivilegeEscalation: true } }))).toMatch(
      unprivileged,
    );
    const confined = /keeps the runtime's default confinement/;
    const podSc = spec.securityContext!;
    for (const change of [
      { seccompProfile: { type: 'Unconfined' } },
      { appArmorProfile: { type: 'Unconfined' } },
      { seLinuxOptions: { type: 'spc_t' } },
      { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] },
      { runAsGroup: 0 },
      { supplementalGroups: [0] },
    ]) {
      expect(await refusal(as({ securityContext: { ...podSc, ...change } })), JSON.stringify(change)).toMatch(
        confined,
      );
    }
    for (const change of [{ seccompProfile: { type: 'Unconfined' } }, { procMount: 'Unmasked' }]) {
      expect(await refusal(as({ hostUsers: false }, { securityContext: { ...sc, ...change } }))).toMatch(
        confined,
      );
    }
    expect(await refusal(as({ priorityClassName: 'system-node-critical' }))).toMatch(
      /has the priority class of worker.priorityClassName \(none\)/,
    );
    await podSecurity('restricted');
    const { [JOB_LABEL]: _, ...unfenced } = worker.metadata!.labels!;
    expect(await refusal({ ...worker, metadata: { ...worker.metadata, labels: unfenced } })).toMatch(
      /carries the worker labels/,
    );
    // The policy holds the controller alone: an administrator's Pods are not its business.
    await s.kube.core.createNamespacedPod({ namespace: s.kube.namespace, body: admin, dryRun: 'All' });
  });
});

describe('administration', () => {
  it('the api can neither create accounts, write a grant nor mint keys', async () => {
    await s.admin.createAccount({ name: 'victim', plan: 'free', grantMicroCents: 0 });
    const asApi = new AccountAdmin(resources(apiKube));
    expect(await denied(asApi.createAccount({ name: 'minted', grantMicroCents: 1_000_000_000 }))).toBe(true);
    expect(await denied(asApi.grant('victim', 1_000_000_000))).toBe(true);
    expect(await denied(asApi.createKey('victim', ['submit_job']))).toBe(true);
    expect((await s.r.accounts.get('victim'))!.spec.grantedMicroCents).toBe(0);
    expect(await s.r.apiKeys.listAll({ labelSelector: 'genjobs.io/account=victim' })).toEqual([]);
  });

  it('the admin ServiceAccount runs the admin commands, and a key it mints works at the api', async () => {
    const asAdmin = new AccountAdmin(resources(await tokenKube(s.kube, 'genjobs-admin')));
    await asAdmin.createAccount({ name: 'by-admin', plan: 'pro', grantMicroCents: 1_000_000 });
    expect((await asAdmin.grant('by-admin', 2_000_000)).spec.grantedMicroCents).toBe(3_000_000);
    const { key, apiKey } = await asAdmin.createKey('by-admin', ['check_status']);
    await eventually(
      async () => (await s.call('/v1/jobs', { key })).status === 200,
      10_000,
      'the new key to be accepted',
    );
    await asAdmin.revokeKey(apiKey.metadata.name!);
    await eventually(
      async () => (await s.call('/v1/jobs', { key })).status === 401,
      10_000,
      'the revoked key to be refused',
    );
  });
});

describe('deleting an account', () => {
  it('the admin ServiceAccount deletes an account and its Secret; the controller erases its jobs with its own rights', async () => {
    const adminKube = await tokenKube(s.kube, 'genjobs-admin');
    const asAdmin = new AccountAdmin(resources(adminKube));
    const key = await s.account({ name: 'departing', plan: 'pro' });
    const owner = { name: 'departing', uid: (await s.r.accounts.get('departing'))!.metadata.uid };
    const secrets = new WebhookSecrets({ kube: adminKube, namespace: `${s.kube.namespace}-webhooks` });
    await secrets.ensure('departing', owner);
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: 'genjobs/reference-image/text-to-image', input: { prompt: 'a last one' } },
    });
    expect(res.status).toBe(200);
    const { jobId } = await res.json();
    await asAdmin.deleteAccount('departing', 'all', {
      timeoutMs: 60_000,
      pollMs: 200,
      beforeDelete: async () => {
        expect(await secrets.delete('departing')).toBe(true);
      },
    });
    expect(await s.r.accounts.get('departing')).toBeUndefined();
    expect(await s.r.jobs.get(jobId)).toBeUndefined();
    expect(await secrets.get('departing')).toBeUndefined();
  });
});

describe('webhook secrets', () => {
  it("the admin ServiceAccount shows and rotates an account's webhook secret; the api cannot read it", async () => {
    await s.admin.createAccount({ name: 'hooked', plan: 'pro', grantMicroCents: 0 });
    const namespace = `${s.kube.namespace}-webhooks`;
    const adminKube = await tokenKube(s.kube, 'genjobs-admin');
    const owner = { name: 'hooked', uid: (await s.r.accounts.get('hooked'))!.metadata.uid };
    const secrets = new WebhookSecrets({ kube: adminKube, namespace });
    const first = await secrets.ensure('hooked', owner);
    expect(first.current).toMatch(/^whsec_/);
    const rotated = await secrets.rotate('hooked', 60_000, owner);
    expect([rotated.previous, rotated.current === first.current]).toEqual([first.current, false]);
    expect(
      await denied(apiKube.core.readNamespacedSecret({ name: webhookSecretName('hooked'), namespace })),
    ).toBe(true);
  });

  it("the controller makes an account's webhook secret on first need and reads it, but cannot rotate it", async () => {
    await s.admin.createAccount({ name: 'signed', plan: 'pro', grantMicroCents: 0 });
    const namespace = `${s.kube.namespace}-webhooks`;
    const owner = { name: 'signed', uid: (await s.r.accounts.get('signed'))!.metadata.uid };
    const secrets = new WebhookSecrets({ kube: controllerKube, namespace });
    /** A dry-run create by the controller: 'created', or the apiserver's refusal. */
    const answer = (body: object): Promise<string> =>
      controllerKube.core.createNamespacedSecret({ namespace, body, dryRun: 'All' }).then(
        () => 'created',
        (err: { body?: unknown }) => String(err.body),
      );
    const [made] = await secrets.signingSecrets('signed', owner);
    expect(made).toMatch(/^whsec_/);
    expect(await secrets.signingSecrets('signed', owner)).toEqual([made]);
    expect(await denied(secrets.rotate('signed', 60_000, owner))).toBe(true);
    // Its right to create Secrets there is a right to these only: a token Secret for a
    // ServiceAccount, which the cluster would fill with a token that never expires, is refused.
    const token = {
      metadata: {
        name: 'genjobs-webhook-token',
        annotations: { 'kubernetes.io/service-account.name': 'default' },
      },
      type: 'kubernetes.io/service-account-token',
    };
    // (Go's JSON escapes the message's "<account>".)
    const refused = /an account's webhook signing Secret \(Opaque, named genjobs-webhook-/;
    await eventually(async () => refused.test(await answer(token)), 15_000, 'the policy in force');
    expect(await answer({ metadata: { name: 'other' }, type: 'Opaque' })).toMatch(refused);
    expect(await answer({ metadata: { name: 'genjobs-webhook-dry' }, type: 'Opaque' })).toBe('created');
    // The Account deleted and made again under its name: the old one's secret is not its own,
    // and the controller, which may not replace it, says who can.
    const namesake = { name: 'signed', uid: 'uid-of-a-new-account' };
    await expect(secrets.signingSecrets('signed', namesake)).rejects.toThrow(
      /made for a deleted account named signed .* `genjobs accounts webhook-secret signed` makes its own/,
    );
  });
});

describe('model credentials', () => {
  it('a runtime may name only a Secret the chart lists and that carries the genjobs label', async () => {
    const secret = (name: string, labels: Record<string, string> = {}) =>
      s.kube.core.createNamespacedSecret({
        namespace: s.kube.namespace,
        body: { metadata: { name, labels }, stringData: { token: 't' } },
      });
    await secret('acme-token', { [MODEL_CREDENTIALS_LABEL]: 'true' });
    await secret('unlabelled-token');
    await secret('signing-key', { [MODEL_CREDENTIALS_LABEL]: 'true' });
    const runtime = (name: string): Runtime =>
      ({
        type: 'http',
        url: 'https://models.example/v1',
        authSecretRef: { name, key: 'token' },
        maxConcurrency: 1,
        timeoutSeconds: 60,
        typicalSeconds: 5,
      }) as Runtime;
    const credentials = new ModelCredentials(controllerKube);
    await credentials.check(runtime('acme-token'));
    await expect(credentials.check(runtime('unlabelled-token'))).rejects.toThrow(/not labelled/);
    // Labelled but not listed in the chart: the controller may not even read it.
    await expect(credentials.check(runtime('signing-key'))).rejects.toThrow(/modelCredentialSecrets/);
    await expect(credentials.check(runtime('genjobs-blob'))).rejects.toThrow(/modelCredentialSecrets/);
  });
});
