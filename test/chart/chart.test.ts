import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApp } from '../../src/api/app.ts';
import { buildCatalog, readDefaultCatalogSource } from '../../src/catalog/load.ts';
import { configSchema } from '../../src/config.ts';
import { buildWorkerPod } from '../../src/controller/job/pod.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { UPLOAD_CONTENT_TYPES } from '../../src/k8s/types.ts';
import { createLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/metrics.ts';
import { maxSizeOf } from '../../src/uploads/policy.ts';
import { testDir } from '../support/temp.ts';
import {
  CHART,
  envOf,
  find,
  helm,
  lint,
  type Manifest,
  parseManifests,
  render,
  run,
  template,
} from './helm.ts';
import { BAD_VALUES, REFUSED_AT_RENDER, VARIANTS } from './variants.ts';

beforeAll(async () => {
  await helm();
}, 900_000);

const deployments = (objects: Manifest[]) => [
  find(objects, 'Deployment', 'genjobs-api'),
  find(objects, 'Deployment', 'genjobs-controller'),
];

describe('helm lint --strict and helm template', () => {
  it.each(Object.entries(VARIANTS))(
    '%s: lint passes with no warning and every document parses',
    async (_, values) => {
      const linted = await lint(values);
      expect(linted.code, linted.stdout + linted.stderr).toBe(0);
      expect(linted.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
      const { objects } = await render(values);
      expect(objects.length).toBeGreaterThan(10);
      for (const o of objects) expect(o.metadata.name, `${o.kind} without a name`).toBeTruthy();
    },
  );

  it.each(REFUSED_AT_RENDER)('$what is refused by template: $mentions', async ({ values, mentions }) => {
    const rendered = await template(values);
    expect(rendered.code).not.toBe(0);
    expect(rendered.stderr).toContain(mentions);
  });

  it.each(BAD_VALUES)('$what is refused by lint and by template: $mentions', async ({ values, mentions }) => {
    const linted = await lint(values);
    expect(linted.code).not.toBe(0);
    expect(linted.stdout + linted.stderr).toContain(mentions);
    const rendered = await template(values);
    expect(rendered.code).not.toBe(0);
    expect(rendered.stderr).toContain(mentions);
  });
});

describe('default values', () => {
  let objects: Manifest[];
  beforeAll(async () => {
    ({ objects } = await render());
  });

  it('run the api and two leader-electing controllers from one image with the restricted security context', () => {
    const [api, controller] = deployments(objects);
    expect(api!.spec.replicas).toBe(2);
    expect(controller!.spec.replicas).toBe(2);
    for (const [d, args, port] of [
      [api!, ['api'], 'http'],
      [controller!, ['controller'], 'metrics'],
    ] as const) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      expect(c.image).toBe('ghcr.io/genjobs/genjobs:0.1.0');
      expect(c.command).toBeUndefined(); // the image's ENTRYPOINT, genjobs
      expect(c.args).toEqual(args);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port });
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.topologySpreadConstraints.map((t: { topologyKey: string }) => t.topologyKey)).toEqual([
        'topology.kubernetes.io/zone',
        'kubernetes.io/hostname',
      ]);
      expect(pod.topologySpreadConstraints[0].labelSelector.matchLabels).toEqual(d.spec.selector.matchLabels);
      expect(pod.volumes.map((v: { name: string }) => v.name)).toEqual(['tmp', 'blobs']);
    }
    const env = envOf(controller!);
    expect(env.GENJOBS_LEADER_ELECTION).toBe('true');
    expect(env.GENJOBS_LEASE_NAME).toBe('genjobs-controller');
    expect(env.POD_NAME).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env.GENJOBS_WORKER_IMAGE).toBe('ghcr.io/genjobs/genjobs:0.1.0');
    expect(env.GENJOBS_WORKER_SERVICE_ACCOUNT).toBe('genjobs-worker');
    expect(env.GENJOBS_WEBHOOK_SECRET_NAMESPACE).toBe('genjobs-webhooks');
  });

  it('keep a stopping api replica listening until it leaves the endpoints, then let it drain', () => {
    const pod = find(objects, 'Deployment', 'genjobs-api').spec.template.spec;
    // The image is Debian's: /bin/sleep is there, and runs on a read-only root filesystem.
    const [sleep, seconds] = pod.containers[0].lifecycle.preStop.exec.command;
    expect([sleep, Number(seconds)]).toEqual(['/bin/sleep', 5]);
    // SIGTERM comes after the preStop hook, within the same grace period: the pause, the
    // server's 20 s drain (src/api/server.ts) and the ledger flush (one apiserver call, 5 s).
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(seconds) + 20 + 5);
  });

  it('give both processes the same settings, the blob secret from a generated Secret', () => {
    const [api, controller] = deployments(objects).map(envOf);
    const shared = {
      GENJOBS_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      GENJOBS_PUBLIC_URL: 'http://127.0.0.1:8080',
      GENJOBS_PLANS: 'enterprise=100,free=2,pro=20',
      GENJOBS_JOB_TTL: '7d',
      GENJOBS_QUEUE_TIMEOUT: '24h',
      GENJOBS_WEBHOOK_ALLOW_PRIVATE: 'false',
      GENJOBS_BLOB_TYPE: 'filesystem',
      GENJOBS_BLOB_DIR: '/var/lib/genjobs/blobs',
      GENJOBS_BLOB_INTERNAL_URL: 'http://genjobs-api:8080/files',
      GENJOBS_BLOB_SECRET: { secretKeyRef: { name: 'genjobs-blob', key: 'signing-secret' } },
      LOG_LEVEL: 'info',
    };
    expect(api).toMatchObject({ ...shared, PORT: '8080' });
    expect(controller).toMatchObject({ ...shared, GENJOBS_CONTROLLER_PORT: '8081' });
    const secret = find(objects, 'Secret', 'genjobs-blob');
    expect(Buffer.from(secret.data['signing-secret'], 'base64').toString().length).toBeGreaterThanOrEqual(32);
    expect(secret.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
  });

  it('claim a ReadWriteMany volume for the blob store and install the default catalog', async () => {
    expect(find(objects, 'PersistentVolumeClaim', 'genjobs-blobs').spec.accessModes).toEqual([
      'ReadWriteMany',
    ]);
    const catalog = find(objects, 'ConfigMap', 'genjobs-catalog-default');
    expect(catalog.metadata.labels['genjobs.io/catalog']).toBe('true');
    expect(catalog.data['default-catalog.yaml']).toBe(
      await readFile(join(REPO_ROOT, 'src/catalog/default-catalog.yaml'), 'utf8'),
    );
  });

  it('expose the api and the controller metrics through Services; nothing optional is rendered', () => {
    expect(find(objects, 'Service', 'genjobs-api').spec.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(find(objects, 'Service', 'genjobs-controller').spec.ports[0]).toMatchObject({
      name: 'metrics',
      port: 8081,
    });
    expect(find(objects, 'PodDisruptionBudget', 'genjobs-api').spec.maxUnavailable).toBe(1);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const k of ['Ingress', 'HorizontalPodAutoscaler', 'ServiceMonitor', 'PrometheusRule'])
      expect(kinds.has(k), k).toBe(false);
    // The one namespace a default install creates holds only the webhook signing Secrets.
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual([
      'genjobs-webhooks',
    ]);
  });
});

/** Settings the chart leaves at their defaults on purpose. */
// GENJOBS_ARCHIVE_DIR: PGlite's, the dev mode's embedded archive.
const DEFAULT_ONLY = ['GENJOBS_WORKER_COMMAND', 'GENJOBS_ARCHIVE_DIR'];

describe('settings', () => {
  it('the chart sets only variables the processes read, and every one they read but the defaults-only', async () => {
    const config = new Set(Object.keys(configSchema.shape));
    const set = new Set<string>();
    for (const values of Object.values(VARIANTS)) {
      for (const d of deployments((await render(values)).objects))
        for (const name of Object.keys(envOf(d))) set.add(name);
    }
    const unknown = [...set].filter((n) => !config.has(n) && !n.startsWith('AWS_'));
    expect(unknown).toEqual([]);
    expect([...config].filter((n) => !set.has(n) && !DEFAULT_ONLY.includes(n))).toEqual([]);
  });

  it('a variable named in extraEnv replaces the chart entry of that name, which is rendered once', async () => {
    const timeout = { name: 'GENJOBS_KUBE_TIMEOUT', value: '15s' };
    const secret = { name: 'GENJOBS_BLOB_SECRET', valueFrom: { secretKeyRef: { name: 'mine', key: 'k' } } };
    const extra = { name: 'NODE_OPTIONS', value: '--max-old-space-size=400' };
    const { objects } = await render({
      api: { extraEnv: [timeout, extra] },
      controller: { extraEnv: [timeout, secret] },
    });
    const [api, controller] = deployments(objects).map(
      (d) => d.spec.template.spec.containers[0].env as Array<{ name: string }>,
    );
    for (const [env, given] of [
      [api!, [timeout, extra]],
      [controller!, [timeout, secret]],
    ] as const) {
      const names = env.map((e) => e.name);
      expect(
        names.filter((n, i) => names.indexOf(n) !== i),
        'names given twice',
      ).toEqual([]);
      // The chart's variables keep their order; the ones given come last, as given.
      expect(env.slice(-given.length)).toEqual(given);
      expect(names).toContain('GENJOBS_KUBE_LIST_TIMEOUT');
    }
    // Without extraEnv, every chart variable is still there.
    const { objects: plain } = await render();
    for (const d of deployments(plain)) expect(envOf(d).GENJOBS_KUBE_TIMEOUT).toBe('5s');
  });

  it('every field values.schema.json allows in worker.resources, the controller accepts', async () => {
    const schema = JSON.parse(await readFile(join(CHART, 'values.schema.json'), 'utf8'));
    const fields = Object.keys(schema.properties.worker.properties.resources.properties);
    const samples: Record<string, unknown> = { requests: { cpu: '1' }, limits: { memory: '1Gi' } };
    expect(fields.sort()).toEqual(Object.keys(samples).sort());
    const parse = configSchema.shape.GENJOBS_WORKER_RESOURCES.safeParse;
    for (const field of fields)
      expect(parse(JSON.stringify({ [field]: samples[field] })).success, field).toBe(true);
    // What the schema refuses, the controller refuses too.
    expect(parse(JSON.stringify({ claims: [{ name: 'gpu' }] })).success).toBe(false);
  });

  it("the api's start-up probe waits well past a first list that takes all of kube.listTimeout", async () => {
    for (const listTimeout of [undefined, '3m', 90, '1.5m']) {
      const { objects } = await render(listTimeout === undefined ? {} : { kube: { listTimeout } });
      const api = find(objects, 'Deployment', 'genjobs-api');
      // As the process reads it: milliseconds.
      const listMs = configSchema.shape.GENJOBS_KUBE_LIST_TIMEOUT.parse(envOf(api).GENJOBS_KUBE_LIST_TIMEOUT);
      const probe = api.spec.template.spec.containers[0].startupProbe;
      expect(probe.periodSeconds * probe.failureThreshold * 1000, String(listTimeout)).toBeGreaterThanOrEqual(
        2 * listMs + 30_000,
      );
    }
  });

  it('refuses a jobs.retention under 24 h at install, which the processes would refuse at start', async () => {
    const parse = configSchema.shape.GENJOBS_RETENTION.safeParse;
    for (const retention of ['12h', '23.9h', '1439m', 3_600, '86399', '0.5d']) {
      const r = await template({ jobs: { retention } });
      expect([retention, r.code]).toEqual([retention, 1]);
      expect(r.stderr).toContain('retention');
      expect(parse(String(retention)).success, String(retention)).toBe(false);
    }
    for (const retention of ['24h', '36h', '1440m', 86_400, '1.5d', '30d', '86400000ms']) {
      const { objects } = await render({ jobs: { retention } });
      const env = envOf(find(objects, 'Deployment', 'genjobs-controller'));
      expect(parse(env.GENJOBS_RETENTION).success, String(retention)).toBe(true);
    }
  });

  it('numbers of 1,000,000 and more in a values file reach the processes as integers they accept', async () => {
    // A values file, not --set: YAML numbers reach the templates as floats.
    const { objects } = await render({
      jobs: { ttl: 2_592_000, retention: 31_536_000, queueTimeout: 1_000_000 },
      limits: { maxLiveJobs: 2_000_000, maxUploadBytes: 10_737_418_240, requestsPerSecond: 2.5 },
    });
    const shape = configSchema.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
    for (const d of deployments(objects)) {
      const env = envOf(d);
      expect(env).toMatchObject({
        GENJOBS_JOB_TTL: '2592000',
        GENJOBS_RETENTION: '31536000',
        GENJOBS_QUEUE_TIMEOUT: '1000000',
        GENJOBS_MAX_LIVE_JOBS: '2000000',
        GENJOBS_MAX_UPLOAD_BYTES: '10737418240',
        GENJOBS_RATE_LIMIT_RPS: '2.5',
      });
      for (const [name, value] of Object.entries(env)) {
        if (typeof value === 'string' && shape[name])
          expect(shape[name].safeParse(value).success, `${name}=${value}`).toBe(true);
      }
    }
  });
});

describe('RBAC', () => {
  it('binds nothing to the worker ServiceAccount, which mounts no token', async () => {
    for (const values of Object.values(VARIANTS)) {
      const { objects } = await render(values);
      expect(find(objects, 'ServiceAccount', 'genjobs-worker').automountServiceAccountToken).toBe(false);
      const bindings = objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding');
      expect(bindings.length).toBeGreaterThan(0);
      for (const b of bindings)
        expect(b.subjects.map((s: { name: string }) => s.name)).not.toContain('genjobs-worker');
    }
  });

  it('grants nothing with "*", nothing cluster-wide, and the api no Pods, Secrets or Leases', async () => {
    for (const values of [
      ...Object.values(VARIANTS),
      { webhooks: { secretNamespace: 'genjobs-webhooks' } },
    ]) {
      const { objects } = await render(values);
      expect(objects.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
      for (const role of objects.filter((o) => o.kind === 'Role')) {
        for (const rule of role.rules) {
          for (const field of ['apiGroups', 'resources', 'verbs', 'resourceNames'])
            expect(rule[field] ?? [], `${role.metadata.name} ${field}`).not.toContain('*');
        }
      }
      const api = find(objects, 'Role', 'genjobs-api');
      const resources = api.rules.flatMap((r: { resources: string[] }) => r.resources);
      for (const r of ['pods', 'secrets', 'leases']) expect(resources).not.toContain(r);
      expect(api.rules.flatMap((r: { verbs: string[] }) => r.verbs)).not.toContain('delete');
    }
  });

  it('grants each component exactly the verbs its code calls: the api mints no key and writes no grant, the controller changes no Secret', async () => {
    const grants = (objects: Manifest[], name: string) =>
      (find(objects, 'Role', name).rules as Array<{ resources: string[]; verbs: string[] }>).reduce<
        Record<string, string[]>
      >((all, r) => {
        for (const res of r.resources) all[res] = [...new Set([...(all[res] ?? []), ...r.verbs])].sort();
        return all;
      }, {});
    const { objects } = await render();
    expect(grants(objects, 'genjobs-api')).toEqual({
      generationjobs: ['create', 'get', 'list', 'watch'],
      uploads: ['create', 'get', 'list', 'watch'],
      accounts: ['get', 'list', 'watch'],
      apikeys: ['get', 'list', 'watch'],
      'generationjobs/status': ['update'],
      'accounts/status': ['update'],
      configmaps: ['list', 'watch'],
      events: ['create'],
    });
    const controller = {
      generationjobs: ['delete', 'get', 'list', 'watch'],
      uploads: ['delete', 'get', 'list', 'watch'],
      accounts: ['get', 'list', 'watch'],
      'generationjobs/status': ['patch', 'update'],
      'uploads/status': ['update'],
      'accounts/status': ['update'],
      'generationjobs/finalizers': ['update'],
      pods: ['create', 'delete', 'list', 'watch'],
      configmaps: ['list', 'watch'],
      resourcequotas: ['list', 'watch'],
      events: ['create'],
      leases: ['create', 'get', 'update'],
    };
    expect(grants(objects, 'genjobs-controller')).toEqual(controller);
    const admin = {
      accounts: ['create', 'delete', 'get', 'list', 'update'],
      apikeys: ['create', 'delete', 'get', 'list'],
      generationjobs: ['get', 'list'],
      uploads: ['get', 'list'],
      // The install's plans and webhook Secret namespace (readNamespacedConfigMap), by name only.
      configmaps: ['get'],
    };
    expect(grants(objects, 'genjobs-admin')).toEqual(admin);
    const adminRole = find(objects, 'Role', 'genjobs-admin');
    expect(
      adminRole.rules.find((r: { resources: string[] }) => r.resources.includes('configmaps')),
    ).toMatchObject({
      resourceNames: ['genjobs-install'],
    });
    // Webhook secrets, in their own namespace: the controller reads them and makes the
    // missing ones (WebhookSecrets.ensure: readNamespacedSecret, createNamespacedSecret); the
    // admin command also rotates them (replaceNamespacedSecret) and deletes an account's
    // (deleteNamespacedSecret, `accounts delete`).
    const webhookRole = find(objects, 'Role', 'genjobs-webhook-secrets');
    expect(webhookRole.metadata.namespace).toBe('genjobs-webhooks');
    expect(grants(objects, 'genjobs-webhook-secrets')).toEqual({ secrets: ['create', 'get'] });
    expect(find(objects, 'RoleBinding', 'genjobs-webhook-secrets').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'genjobs-controller', namespace: 'genjobs' },
    ]);
    expect(grants(objects, 'genjobs-admin-webhook-secrets')).toEqual({
      secrets: ['create', 'delete', 'get', 'update'],
    });
    const binding = find(objects, 'RoleBinding', 'genjobs-admin-webhook-secrets');
    expect([binding.metadata.namespace, binding.roleRef.name, binding.subjects[0].name]).toEqual([
      'genjobs-webhooks',
      'genjobs-admin-webhook-secrets',
      'genjobs-admin',
    ]);
    // In the release namespace: the same verbs, on the Roles of the release namespace.
    const { objects: shared } = await render({ webhooks: { secretNamespace: 'genjobs' } });
    expect(shared.some((o) => o.metadata.name.endsWith('webhook-secrets'))).toBe(false);
    expect(grants(shared, 'genjobs-controller')).toEqual({ ...controller, secrets: ['create', 'get'] });
    expect(grants(shared, 'genjobs-admin')).toEqual({
      ...admin,
      secrets: ['create', 'delete', 'get', 'update'],
    });
  });

  it('lets the controller read by name only the model credential Secrets listed', async () => {
    const { objects } = await render({ worker: { modelCredentialSecrets: ['acme-token', 'other-token'] } });
    const secrets = (
      find(objects, 'Role', 'genjobs-controller').rules as Array<{ resources: string[] }>
    ).filter((r) => r.resources.includes('secrets'));
    expect(secrets).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['acme-token', 'other-token'],
        verbs: ['get'],
      },
    ]);
  });

  it('binds the admin Role to a ServiceAccount no Pod runs as, and to the subjects given', async () => {
    const subject = { kind: 'Group', name: 'platform-team', apiGroup: 'rbac.authorization.k8s.io' };
    const { objects } = await render({ rbac: { admin: { subjects: [subject] } } });
    expect(find(objects, 'ServiceAccount', 'genjobs-admin').automountServiceAccountToken).toBe(false);
    expect(find(objects, 'RoleBinding', 'genjobs-admin').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'genjobs-admin', namespace: 'genjobs' },
      subject,
    ]);
    for (const d of deployments(objects))
      expect(d.spec.template.spec.serviceAccountName).not.toBe('genjobs-admin');
    const { objects: off } = await render({ rbac: { admin: { create: false } } });
    expect(off.some((o) => o.metadata.name === 'genjobs-admin')).toBe(false);
  });
  it('confines the controller to one Lease, and to the webhook namespace for Secrets when one is set', async () => {
    const rules = (objects: Manifest[], name: string) =>
      find(objects, 'Role', name).rules as Array<{
        resources: string[];
        verbs: string[];
        resourceNames?: string[];
      }>;
    const { objects: shared } = await render();
    const leases = rules(shared, 'genjobs-controller').filter((r) => r.resources.includes('leases'));
    expect(leases).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['genjobs-controller'],
        verbs: ['get', 'update'],
      },
    ]);
    // By default the webhook Secrets live in <namespace>-webhooks: no right on the release namespace's Secrets.
    expect(rules(shared, 'genjobs-controller').some((r) => r.resources.includes('secrets'))).toBe(false);
    expect(find(shared, 'Role', 'genjobs-webhook-secrets').metadata.namespace).toBe('genjobs-webhooks');
    // Opting into the release namespace: per-account Secret names cannot be listed in
    // resourceNames, so get and create there, never list or watch.
    const { objects: inRelease } = await render({ webhooks: { secretNamespace: 'genjobs' } });
    expect(rules(inRelease, 'genjobs-controller').filter((r) => r.resources.includes('secrets'))).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
    ]);
    // Unset, the controller uses the namespace it runs in, wherever an overlay moves it.
    expect(
      envOf(find(inRelease, 'Deployment', 'genjobs-controller')).GENJOBS_WEBHOOK_SECRET_NAMESPACE,
    ).toBeUndefined();

    const { objects: apart } = await render({ webhooks: { secretNamespace: 'genjobs-webhooks' } });
    expect(rules(apart, 'genjobs-controller').some((r) => r.resources.includes('secrets'))).toBe(false);
    const role = find(apart, 'Role', 'genjobs-webhook-secrets');
    expect(role.metadata.namespace).toBe('genjobs-webhooks');
    expect(find(apart, 'RoleBinding', 'genjobs-webhook-secrets').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'genjobs-controller', namespace: 'genjobs' },
    ]);
    expect(find(apart, 'Namespace', 'genjobs-webhooks')).toBeTruthy();
    expect(envOf(find(apart, 'Deployment', 'genjobs-controller')).GENJOBS_WEBHOOK_SECRET_NAMESPACE).toBe(
      'genjobs-webhooks',
    );
  });
});

/** A worker Pod as the controller builds it (src/controller/job/pod.ts). */
function aWorkerPod(serviceAccountName?: string) {
  return buildWorkerPod(
    {
      apiVersion: 'genjobs.io/v1alpha1',
      kind: 'GenerationJob',
      metadata: { name: 'j-1', uid: 'u' },
      spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
    },
    1,
    { type: 'builtin', maxConcurrency: 1, timeoutSeconds: 60, typicalSeconds: 5 },
    {
      image: 'i',
      command: ['genjobs', 'worker'],
      blobUrl: 'u',
      blobPublicUrl: 'u',
      blobGrant: 'g',
      serviceAccountName,
    },
  );
}

describe('worker isolation', () => {
  it('a default-deny NetworkPolicy selects the worker Pods and lets out only DNS, the api and the model servers', async () => {
    const model = { to: [{ ipBlock: { cidr: '203.0.113.10/32' } }], ports: [{ port: 443, protocol: 'TCP' }] };
    const { objects } = await render({ networkPolicy: { worker: { modelServers: [model] } } });
    const policy = find(objects, 'NetworkPolicy', 'genjobs-worker');
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress).toEqual([]);
    const pod = aWorkerPod();
    const labels = pod.metadata!.labels!;
    const selector = policy.spec.podSelector;
    for (const [k, v] of Object.entries(selector.matchLabels)) expect(labels[k]).toBe(v);
    for (const e of selector.matchExpressions) expect(labels[e.key]).toBeDefined();
    // The api's own Pods do not carry them: the fence holds the workers only.
    const api = find(objects, 'Deployment', 'genjobs-api').spec.template.metadata.labels;
    expect(selector.matchExpressions.every((e: { key: string }) => api[e.key] !== undefined)).toBe(false);

    const [dns, toApi, toModel, ...rest] = policy.spec.egress;
    expect(dns.ports).toEqual([
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ]);
    expect(dns.to[0].podSelector.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    expect(toApi.to[0].podSelector.matchLabels).toEqual(
      find(objects, 'Deployment', 'genjobs-api').spec.selector.matchLabels,
    );
    expect(toApi.ports).toEqual([{ protocol: 'TCP', port: 8080 }]);
    expect(toModel).toEqual(model);
    expect(rest).toEqual([]);
  });

  it('DNS peers: a list is rendered as given; the former single peer merges over the default, an ipBlock alone', async () => {
    const dnsPeers = async (dns: unknown) => {
      const { objects } = await render({ networkPolicy: { worker: { dns } } });
      return find(objects, 'NetworkPolicy', 'genjobs-worker').spec.egress[0].to;
    };
    const kubeDns = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    };
    const nodeLocal = { ipBlock: { cidr: '169.254.20.10/32' } };
    expect(find((await render()).objects, 'NetworkPolicy', 'genjobs-worker').spec.egress[0].to).toEqual([
      kubeDns,
    ]);
    // NodeLocal DNSCache beside kube-dns: two peers, the ipBlock on its own.
    expect(await dnsPeers([nodeLocal, kubeDns])).toEqual([nodeLocal, kubeDns]);
    // A map, as values files wrote it before: merged over the default peer...
    expect(await dnsPeers({ podSelector: { matchLabels: { 'k8s-app': 'coredns' } } })).toEqual([
      { ...kubeDns, podSelector: { matchLabels: { 'k8s-app': 'coredns' } } },
    ]);
    // ...except an ipBlock, which takes no selector.
    expect(await dnsPeers(nodeLocal)).toEqual([nodeLocal]);
  });

  it('worker Pods pull their image with imagePullSecrets, through the worker ServiceAccount', async () => {
    const pullSecrets = [{ name: 'regcred' }];
    const { objects } = await render({ imagePullSecrets: pullSecrets });
    const account = find(objects, 'ServiceAccount', 'genjobs-worker');
    expect(account.imagePullSecrets).toEqual(pullSecrets);
    for (const d of deployments(objects)) expect(d.spec.template.spec.imagePullSecrets).toEqual(pullSecrets);
    // The ServiceAccount admission copies the account's pull Secrets into a Pod that names
    // none; the Pod the controller builds names none, and runs as the chart's worker account.
    const env = envOf(find(objects, 'Deployment', 'genjobs-controller'));
    const pod = aWorkerPod(env.GENJOBS_WORKER_SERVICE_ACCOUNT as string);
    expect(pod.spec!.serviceAccountName).toBe(account.metadata.name);
    expect(pod.spec!.imagePullSecrets).toBeUndefined();
    const { objects: none } = await render();
    expect(find(none, 'ServiceAccount', 'genjobs-worker').imagePullSecrets).toBeUndefined();
  });

  it('the bundled PostgreSQL mounts no token, pulls with the chart pull Secrets and is placed as given', async () => {
    const placement = {
      nodeSelector: { pool: 'db' },
      tolerations: [{ key: 'db', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
      priorityClassName: 'genjobs-db',
    };
    const { objects } = await render({
      imagePullSecrets: [{ name: 'regcred' }],
      archive: { postgres: { ...placement, image: { tag: '17.5', pullPolicy: 'Always' } } },
    });
    const pod = find(objects, 'StatefulSet', 'genjobs-postgres').spec.template.spec;
    expect(pod).toMatchObject({ ...placement, imagePullSecrets: [{ name: 'regcred' }] });
    expect(pod.containers[0]).toMatchObject({ image: 'postgres:17.5', imagePullPolicy: 'Always' });
    const { objects: plain } = await render();
    const defaults = find(plain, 'StatefulSet', 'genjobs-postgres').spec.template.spec;
    expect(defaults.automountServiceAccountToken).toBe(false);
    for (const field of ['imagePullSecrets', 'nodeSelector', 'tolerations', 'affinity', 'priorityClassName'])
      expect(defaults[field], field).toBeUndefined();
    expect(defaults.containers[0].imagePullPolicy).toBe('IfNotPresent');
  });

  it('the bundled PostgreSQL takes connections from the api and the controller only', async () => {
    const { objects } = await render();
    const policy = find(objects, 'NetworkPolicy', 'genjobs-postgres');
    const postgres = find(objects, 'StatefulSet', 'genjobs-postgres').spec.template.metadata.labels;
    for (const [k, v] of Object.entries(policy.spec.podSelector.matchLabels)) expect(postgres[k]).toBe(v);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toHaveLength(1);
    const [rule] = policy.spec.ingress;
    expect(rule.ports).toEqual([{ protocol: 'TCP', port: 5432 }]);
    expect(rule.from.map((p: { podSelector: { matchLabels: object } }) => p.podSelector.matchLabels)).toEqual(
      deployments(objects).map((d) => d.spec.selector.matchLabels),
    );
    // Worker Pods (model code) match no peer.
    const worker = aWorkerPod().metadata!.labels!;
    for (const peer of rule.from) {
      const labels = Object.entries(peer.podSelector.matchLabels as Record<string, string>);
      expect(labels.every(([k, v]) => worker[k] === v)).toBe(false);
    }
    for (const values of [
      { archive: { enabled: false } },
      VARIANTS['archive on an existing PostgreSQL with TLS']!,
      { networkPolicy: { postgres: { enabled: false } } },
    ]) {
      const { objects: other } = await render(values);
      expect(other.some((o) => o.metadata.name === 'genjobs-postgres' && o.kind === 'NetworkPolicy')).toBe(
        false,
      );
    }
  });

  it('public inputs open public addresses only; the policy can be turned off', async () => {
    const { objects } = await render({ networkPolicy: { worker: { publicInternet: true } } });
    const egress = find(objects, 'NetworkPolicy', 'genjobs-worker').spec.egress;
    const open = egress[egress.length - 1];
    expect(open.to[0].ipBlock.except).toEqual(
      expect.arrayContaining([
        '10.0.0.0/8',
        '169.254.0.0/16',
        '127.0.0.0/8',
        '172.16.0.0/12',
        '192.168.0.0/16',
      ]),
    );
    const { objects: off } = await render({ networkPolicy: { worker: { enabled: false } } });
    expect(off.some((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'genjobs-worker')).toBe(false);
  });

  it('the namespaces the chart and deploy/base make enforce the restricted Pod Security Standard', async () => {
    const { objects } = await render();
    // Helm writes its release Secret into the release namespace before it creates any object
    // of the chart: the chart never makes that namespace, the user does (README).
    expect(objects.some((o) => o.kind === 'Namespace' && o.metadata.name === 'genjobs')).toBe(false);
    expect(
      find(objects, 'Namespace', 'genjobs-webhooks').metadata.labels['pod-security.kubernetes.io/enforce'],
    ).toBe('restricted');
    const base = parseManifests(await readFile(join(REPO_ROOT, 'deploy/base/namespace.yaml'), 'utf8'));
    expect(base[0]!.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});

/** An nginx size (`client_max_body_size`): bytes, or k, m, g for powers of 1024. */
function nginxSize(size: string): number {
  const [, n, unit = ''] = /^(\d+)([kmg]?)$/i.exec(size) ?? [];
  if (n === undefined) throw new Error(`not an nginx size: ${size}`);
  return Number(n) * 1024 ** ['', 'k', 'm', 'g'].indexOf(unit.toLowerCase());
}

describe('optional parts', () => {
  it('s3: credentials from the Secret in both processes, no volume', async () => {
    const { objects } = await render(VARIANTS.s3!);
    for (const d of deployments(objects)) {
      expect(envOf(d)).toMatchObject({
        GENJOBS_BLOB_TYPE: 's3',
        GENJOBS_S3_BUCKET: 'genjobs-outputs',
        GENJOBS_S3_REGION: 'eu-west-1',
        GENJOBS_S3_ENDPOINT: 'https://minio.storage.svc:9000',
        GENJOBS_S3_FORCE_PATH_STYLE: 'true',
        GENJOBS_BLOB_PUBLIC_URL: 'https://cdn.example.com/genjobs',
        AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'genjobs-s3', key: 'AWS_ACCESS_KEY_ID' } },
        AWS_SECRET_ACCESS_KEY: { secretKeyRef: { name: 'genjobs-s3', key: 'AWS_SECRET_ACCESS_KEY' } },
      });
      expect(envOf(d).GENJOBS_BLOB_DIR).toBeUndefined();
      expect(d.spec.template.spec.volumes.map((v: { name: string }) => v.name)).toEqual(['tmp']);
    }
    expect(objects.some((o) => o.kind === 'PersistentVolumeClaim')).toBe(false);
  });

  it('ingress: the host with TLS routes only /v1, /files and /docs, and becomes the public URL', async () => {
    const { objects } = await render(VARIANTS['ingress with TLS']!);
    const ingress = find(objects, 'Ingress', 'genjobs');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.tls).toEqual([{ hosts: ['gen.example.com'], secretName: 'genjobs-tls' }]);
    expect(ingress.spec.rules[0].host).toBe('gen.example.com');
    expect(ingress.spec.rules[0].http.paths.map((p: { path: string }) => p.path)).toEqual([
      '/v1',
      '/files',
      '/docs',
    ]);
    // Event streams pass ingress-nginx unbuffered and outlive its 60 s read timeout.
    expect(ingress.metadata.annotations).toMatchObject({
      'cert-manager.io/cluster-issuer': 'letsencrypt',
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
    });
    // ingress-nginx refuses bodies over its limit (default 1m) itself: the largest upload must pass.
    const largest = Math.max(...UPLOAD_CONTENT_TYPES.map(maxSizeOf));
    expect(largest).toBe(100 * 1024 * 1024);
    expect(
      nginxSize(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size']),
    ).toBeGreaterThan(largest);
    expect(envOf(find(objects, 'Deployment', 'genjobs-api')).GENJOBS_PUBLIC_URL).toBe(
      'https://gen.example.com',
    );
  });

  it('HPA: scales the api Deployment, which then sets no replica count', async () => {
    const { objects } = await render(VARIANTS['HPA on']!);
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'genjobs-api');
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 12,
      scaleTargetRef: { name: 'genjobs-api' },
    });
    expect(hpa.spec.metrics.map((m: { resource: { name: string } }) => m.resource.name)).toEqual([
      'cpu',
      'memory',
    ]);
    expect(find(objects, 'Deployment', 'genjobs-api').spec.replicas).toBeUndefined();
  });

  it('worker defaults reach the controller as env; extra catalogs become labelled ConfigMaps', async () => {
    const { objects } = await render(VARIANTS['worker defaults and custom catalog']!);
    const env = envOf(find(objects, 'Deployment', 'genjobs-controller'));
    expect(env).toMatchObject({
      GENJOBS_WORKER_IMAGE: 'registry.example.com/genjobs-worker:gpu-1',
      GENJOBS_WORKER_PRIORITY_CLASS: 'genjobs-batch',
      GENJOBS_PLANS: 'free=1,pro=50,team=10',
      GENJOBS_JOB_TTL: '3d',
      LOG_LEVEL: 'debug',
    });
    expect(JSON.parse(env.GENJOBS_WORKER_RESOURCES as string)).toEqual({
      requests: { cpu: '1', memory: '1Gi' },
      limits: { memory: '2Gi' },
    });
    expect(JSON.parse(env.GENJOBS_WORKER_NODE_SELECTOR as string)).toEqual({ pool: 'gpu' });
    expect(JSON.parse(env.GENJOBS_WORKER_TOLERATIONS as string)).toHaveLength(1);
    const catalogs = objects.filter(
      (o) => o.kind === 'ConfigMap' && o.metadata.labels?.['genjobs.io/catalog'] === 'true',
    );
    expect(catalogs.map((c) => c.metadata.name)).toEqual([
      'genjobs-catalog-studio',
      'genjobs-catalog-shared',
    ]);
    expect(catalogs[0]!.data).toEqual({ 'studio.yaml': 'providers: []\n' });
    expect(parse(catalogs[1]!.data['catalog.yaml'])).toEqual({
      categories: [{ id: 'image', name: 'Image' }],
    });
  });

  it("worker.image: each field set replaces that field of the chart's image, in the env and the Pod policy alike", async () => {
    const digest = (c: string) => `sha256:${c.repeat(64)}`;
    const { appVersion } = parse(await readFile(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string };
    const cases: Array<[object, string]> = [
      [{}, `ghcr.io/genjobs/genjobs:${appVersion}`],
      [{ worker: { image: { tag: '0.1.1' } } }, 'ghcr.io/genjobs/genjobs:0.1.1'],
      [{ worker: { image: { digest: digest('a') } } }, `ghcr.io/genjobs/genjobs@${digest('a')}`],
      [{ worker: { image: { repository: 'r.example/w' } } }, `r.example/w:${appVersion}`],
      [{ image: { tag: '7' } }, 'ghcr.io/genjobs/genjobs:7'],
      [{ image: { digest: digest('b') } }, `ghcr.io/genjobs/genjobs@${digest('b')}`],
      [{ image: { digest: digest('b') }, worker: { image: { tag: '2' } } }, 'ghcr.io/genjobs/genjobs:2'],
    ];
    for (const [values, image] of cases) {
      const { objects } = await render(values);
      const env = envOf(find(objects, 'Deployment', 'genjobs-controller'));
      const policy = find(objects, 'ValidatingAdmissionPolicy', 'genjobs.genjobs-worker-pods');
      expect([values, env.GENJOBS_WORKER_IMAGE]).toEqual([values, image]);
      expect(JSON.stringify(policy.spec)).toContain(`c.image == \\"${image}\\"`);
    }
  });

  it('monitoring: alerts and the dashboard use only metrics the service exports', async () => {
    const { objects } = await render(VARIANTS['monitoring on']!);
    const monitor = find(objects, 'ServiceMonitor', 'genjobs');
    expect(monitor.spec.endpoints.map((e: { port: string }) => e.port)).toEqual(['http', 'metrics']);
    expect(monitor.metadata.labels.release).toBe('prometheus');
    const rules = find(objects, 'PrometheusRule', 'genjobs').spec.groups[0].rules as Array<{
      alert: string;
      expr: string;
      labels: Record<string, string>;
      annotations: { summary: string; description: string };
    }>;
    expect(rules.map((r) => r.alert)).toEqual([
      'GenjobsApiErrorRate',
      'GenjobsJobsStuckPending',
      'GenjobsWebhookFailures',
      'GenjobsWebhooksGivenUp',
      'GenjobsControllerNotLeading',
      'GenjobsControllerSeveralLeaders',
      'GenjobsCatalogReloadFailing',
      'GenjobsLedgerImbalanced',
      'GenjobsReconcileErrors',
      'GenjobsArchiveLagging',
      'GenjobsArchiveErrors',
    ]);
    expect(rules.find((r) => r.alert === 'GenjobsLedgerImbalanced')).toMatchObject({
      labels: { severity: 'critical' },
    });
    // The api's error ratio counts client requests: not the probes and scrapes, whose route
    // labels come from the running app.
    const probeRoutes = await routeLabelsOf(['/healthz', '/readyz', '/metrics']);
    expect(probeRoutes.sort()).toEqual(['/healthz', '/metrics', '/readyz']);
    const errorRate = rules.find((r) => r.alert === 'GenjobsApiErrorRate')!.expr;
    const selectors = [...errorRate.matchAll(/genjobs_http_request_duration_seconds_count\{([^}]*)\}/g)];
    expect(selectors).toHaveLength(2);
    for (const [, selector] of selectors) {
      const excluded = /route!~"([^"]*)"/.exec(selector!)?.[1];
      expect(excluded, selector).toBeDefined();
      const pattern = new RegExp(`^(?:${excluded})$`);
      for (const route of probeRoutes) expect(pattern.test(route), route).toBe(true);
      for (const route of ['/v1/jobs/submit', '/files', '/unmatched', 'unmatched'])
        expect(pattern.test(route), route).toBe(false);
    }
    const dashboard = find(objects, 'ConfigMap', 'genjobs-dashboard');
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    const panels = JSON.parse(dashboard.data['genjobs.json']).panels as Array<{
      targets: Array<{ expr: string }>;
    }>;
    const exprs = [...rules.map((r) => r.expr), ...panels.flatMap((p) => p.targets.map((t) => t.expr))];

    const metrics = createMetrics(new Registry(), { processMetrics: false });
    const exported = new Map(
      (await metrics.registry.getMetricsAsJSON()).map((m) => [m.name, String(m.type)] as const),
    );
    const used = new Set(exprs.flatMap((e) => e.match(/genjobs_[a-z_]+/g) ?? []));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      const known = exported.has(name) || exported.get(base) === 'histogram';
      expect(known, `${name} is not exported by src/metrics.ts`).toBe(true);
    }
    // The labels a rule matches, groups by or names in its annotations are its metrics' own
    // (or the scrape's: job, namespace, instance).
    const labelsOf = (name: string) =>
      (
        metrics.registry.getSingleMetric(name.replace(/_(bucket|count|sum)$/, '')) as unknown as {
          labelNames: string[];
        }
      ).labelNames;
    for (const rule of rules) {
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(rule.annotations.description, rule.alert).toBeTruthy();
      const names = rule.expr.match(/genjobs_[a-z_]+/g) ?? [];
      const own = new Set(['job', 'namespace', 'instance', 'le', ...names.flatMap(labelsOf)]);
      const text = `${rule.expr} ${rule.annotations.summary} ${rule.annotations.description}`;
      const used = [
        ...[...rule.expr.matchAll(/(?:by|on) \(([^)]*)\)/g)].flatMap(([, l]) => l!.split(/,\s*/)),
        ...[...rule.expr.matchAll(/[{,]\s*([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map(([, l]) => l!),
        ...[...text.matchAll(/\$labels\.([a-z_]+)/g)].map(([, l]) => l!),
      ];
      for (const label of used) expect(own.has(label), `${rule.alert}: label ${label}`).toBe(true);
    }
  });
});

describe('Grafana dashboard', () => {
  it("is the release namespace's own: uid (40 characters at most) and title, the panels as in files/", async () => {
    const dashboardIn = async (namespace: string) => {
      const { objects } = await render(VARIANTS['monitoring on']!, { namespace });
      return JSON.parse(find(objects, 'ConfigMap', 'genjobs-dashboard').data['genjobs.json']);
    };
    const file = JSON.parse(await readFile(join(CHART, 'files/dashboard.json'), 'utf8'));
    const long = 'a-namespace-whose-name-is-longer-than-a-grafana-uid';
    const [one, other, longer, longer2] = await Promise.all(
      ['genjobs', 'genjobs-eu', long, `${long}-2`].map(dashboardIn),
    );
    expect([one.uid, one.title]).toEqual(['genjobs-genjobs', 'genjobs (genjobs)']);
    expect([other.uid, other.title]).toEqual(['genjobs-genjobs-eu', 'genjobs (genjobs-eu)']);
    expect(longer.uid.length).toBeLessThanOrEqual(40);
    expect(longer2.uid).not.toBe(longer.uid);
    expect({ ...one, uid: file.uid, title: file.title }).toEqual(file);
  });
});

describe('two releases in one cluster', () => {
  it('never make one cluster-wide name, whatever their release and namespace names', async () => {
    const clusterWide = async (release: string, namespace: string) => {
      const { objects } = await render({}, { release, namespace });
      return objects
        .filter((o) => !o.metadata.namespace && o.kind !== 'Namespace')
        .map((o) => `${o.kind}/${o.metadata.name}`);
    };
    // "gj-stg" in "x" and "gj" in "stg-x": release-namespace would join both to gj-stg-x.
    const [one, other] = await Promise.all([clusterWide('gj-stg', 'x'), clusterWide('gj', 'stg-x')]);
    expect(one.length).toBeGreaterThanOrEqual(4);
    expect(one).toContain('ValidatingAdmissionPolicy/x.gj-stg-worker-pods');
    expect(one.filter((n) => other.includes(n))).toEqual([]);
  });
});

describe('alert thresholds', () => {
  it('take any Prometheus duration, and the archive lag compares in seconds', async () => {
    const { objects } = await render({
      metrics: { prometheusRule: { enabled: true, pendingFor: '2d', archiveLag: '1h30m' } },
    });
    const rules = find(objects, 'PrometheusRule', 'genjobs').spec.groups[0].rules as Array<{
      alert: string;
      expr: string;
      for: string;
    }>;
    expect(rules.find((r) => r.alert === 'GenjobsJobsStuckPending')!.for).toBe('2d');
    expect(rules.find((r) => r.alert === 'GenjobsArchiveLagging')!.expr).toMatch(/\) > 5400$/);
  });
});

/** The route labels the api's request metric gets for these paths, from the app itself. */
async function routeLabelsOf(paths: string[]): Promise<string[]> {
  const metrics = createMetrics(new Registry(), { processMetrics: false });
  const app = createApp({
    log: createLogger('chart-test', 'silent'),
    metrics,
    notReady: () => undefined,
    routers: [],
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    for (const path of paths) await (await fetch(`http://127.0.0.1:${port}${path}`)).arrayBuffer();
  } finally {
    server.close();
  }
  const histogram = (await metrics.registry.getMetricsAsJSON()).find(
    (m) => m.name === 'genjobs_http_request_duration_seconds',
  )!;
  return [...new Set(histogram.values.map((v) => String(v.labels.route)))];
}

describe('sources of truth', () => {
  it("the chart's CRDs are the repository's crds/", async () => {
    const source = (await readdir(join(REPO_ROOT, 'crds'))).sort();
    expect((await readdir(join(CHART, 'crds'))).sort()).toEqual(source);
    for (const f of source) {
      expect(
        await readFile(join(CHART, 'crds', f), 'utf8'),
        `charts/genjobs/crds/${f} differs from crds/${f}`,
      ).toBe(await readFile(join(REPO_ROOT, 'crds', f), 'utf8'));
    }
  });

  it('the image is built on the Node version the project pins', async () => {
    const dockerfile = await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const tag = /^ARG NODE_IMAGE=node:(\S+)$/m.exec(dockerfile)?.[1];
    const lock = JSON.parse(await readFile(join(REPO_ROOT, 'package-lock.json'), 'utf8'));
    expect(tag).toBe(`${lock.packages['node_modules/node'].version}-bookworm-slim`);
  });

  it("the chart's default catalog is src/catalog/default-catalog.yaml", async () => {
    expect(await readFile(join(CHART, 'files/default-catalog.yaml'), 'utf8')).toBe(
      await readFile(join(REPO_ROOT, 'src/catalog/default-catalog.yaml'), 'utf8'),
    );
  });

  it('deploy/base is what tools/helm/render-deploy.sh renders now', async () => {
    const out = await testDir('genjobs-deploy-');
    const r = await run('bash', [join(REPO_ROOT, 'tools/helm/render-deploy.sh'), out]);
    expect(r.code, r.stderr).toBe(0);
    const base = join(REPO_ROOT, 'deploy/base');
    const files = (await readdir(out)).sort();
    expect((await readdir(base)).sort()).toEqual(files);
    for (const f of files) {
      expect(
        await readFile(join(base, f), 'utf8'),
        `deploy/base/${f} is stale: run tools/helm/render-deploy.sh`,
      ).toBe(await readFile(join(out, f), 'utf8'));
    }
    // Nothing in the base depends on a value generated at render time.
    const objects = parseManifests(await readFile(join(base, 'genjobs.yaml'), 'utf8'));
    expect(objects.some((o) => o.kind === 'Secret')).toBe(false);
  });

  it('the example catalog builds together with the default catalog', async () => {
    const [example] = parseManifests(
      await readFile(join(REPO_ROOT, 'deploy/examples/catalog-acme.yaml'), 'utf8'),
    );
    const result = buildCatalog([
      await readDefaultCatalogSource(),
      { name: example!.metadata.name, documents: example!.data },
    ]);
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });
});
