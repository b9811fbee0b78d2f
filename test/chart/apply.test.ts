import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';
import { eventually, kubeconfigPath, testNamespace } from '../support/cluster.ts';
import { testDir } from '../support/temp.ts';
import {
  CHART,
  envOf,
  find,
  helm,
  installDryRun,
  kubectl,
  type Manifest,
  parseManifests,
  render,
  run,
} from './helm.ts';
import { VARIANTS } from './variants.ts';

/**
 * The rendered manifests against the real apiserver: server-side dry-run validates every
 * object against the served schemas (CRDs included), and the RBAC objects, applied for
 * real, are asked what they allow through impersonation.
 */

// The bare control plane has no Prometheus Operator: minimal stand-ins for its two kinds,
// so the monitoring objects are at least checked for kind, scope and metadata.
const MONITORING_CRDS = ['ServiceMonitor', 'PrometheusRule'].map((kind) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.monitoring.coreos.com` },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: { kind, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
}));

let kubeconfig: string;

beforeAll(async () => {
  await helm();
  kubeconfig = kubeconfigPath();
  const r = await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    MONITORING_CRDS.map((c) => stringify(c)).join('---\n'),
  );
  expect(r.code, r.stderr).toBe(0);
  const established = await kubectl(kubeconfig, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...MONITORING_CRDS.map((c) => `crd/${c.metadata.name}`),
  ]);
  expect(established.code, established.stderr).toBe(0);
}, 900_000);

/** Every rendered object names its namespace (the release's, or the webhook Secrets' own). */
async function dryRun(manifests: string) {
  return kubectl(kubeconfig, ['apply', '--dry-run=server', '-f', '-'], manifests);
}

describe('kubectl apply --dry-run=server', () => {
  it.each(Object.entries(VARIANTS))('%s: every rendered object is accepted', async (_, values) => {
    const kube = await testNamespace('chart-dry');
    const ns = kube.namespace;
    // The webhook Secrets' own namespace must exist for a dry run of the Role in it.
    await ensureNamespace(kube, `${ns}-webhooks`);
    const { text, objects } = await render(values, { namespace: ns });
    const r = await dryRun(text);
    expect(r.code, r.stderr).toBe(0);
    const accepted = r.stdout.split('\n').filter((l) => l.endsWith('(server dry run)'));
    expect(accepted).toHaveLength(objects.length);
  });

  it('deploy/base (moved to a namespace by an overlay) and the examples are accepted', async () => {
    const ns = (await testNamespace('chart-base')).namespace;
    const dir = await testDir('genjobs-overlay-');
    await cp(join(REPO_ROOT, 'deploy/base'), join(dir, 'base'), { recursive: true });
    await writeFile(join(dir, 'kustomization.yaml'), stringify({ namespace: ns, resources: ['base'] }));
    const built = await kubectl(kubeconfig, ['kustomize', dir]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).not.toContain('namespace: genjobs\n');
    // The webhook Secrets follow the controller into the overlay's namespace: nothing names the base's.
    const controller = parseManifests(built.stdout).find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'genjobs-controller',
    )!;
    expect(Object.values(envOf(controller))).not.toContain('genjobs');
    expect(envOf(controller).GENJOBS_WEBHOOK_SECRET_NAMESPACE).toBeUndefined();
    const base = await dryRun(built.stdout);
    expect(base.code, base.stderr).toBe(0);
    const examples = await kubectl(kubeconfig, [
      'apply',
      '--dry-run=server',
      '--namespace',
      ns,
      '-f',
      join(REPO_ROOT, 'deploy/examples'),
    ]);
    expect(examples.code, examples.stderr).toBe(0);
    expect(examples.stdout).toContain('account.genjobs.io/acme-studio created (server dry run)');
    expect(examples.stdout).toContain('configmap/catalog-acme created (server dry run)');
  });
});

describe('NOTES of an install', () => {
  it('the default file store says it needs a ReadWriteMany StorageClass, or S3', async () => {
    const ns = (await testNamespace('chart-notes')).namespace;
    const r = await installDryRun(kubeconfig, {}, { namespace: ns });
    expect(r.code, r.stderr).toBe(0);
    expect(r.notes).toMatch(/ReadWriteMany[\s\S]*blob\.type=s3/);
    for (const values of [
      VARIANTS.s3!,
      { blob: { filesystem: { persistence: { existingClaim: 'mine' } } } },
    ]) {
      const other = await installDryRun(kubeconfig, values, { namespace: ns });
      expect(other.code, other.stderr).toBe(0);
      expect(other.notes).not.toContain('ReadWriteMany');
    }
  });
});

describe('NOTES on Pod Security', () => {
  it('warn of a namespace without the restricted level, also one helm --create-namespace is about to make', async () => {
    const warning = /WARNING: namespace (\S+) does not enforce the "restricted" Pod Security Standard/;
    const kube = await testNamespace('chart-notes-pss');
    const ns = kube.namespace;
    const notes = async (namespace: string) => {
      const r = await installDryRun(kubeconfig, {}, { namespace });
      expect(r.code, r.stderr).toBe(0);
      return r.notes;
    };
    expect(warning.exec(await notes(ns))?.[1]).toBe(ns);
    const absent = `${ns}-new`;
    const created = await notes(absent);
    expect(warning.exec(created)?.[1]).toBe(absent);
    expect(created).toContain("helm's --create-namespace makes it without labels");
    const labelled = await kubectl(kubeconfig, [
      'label',
      'namespace',
      ns,
      'pod-security.kubernetes.io/enforce=restricted',
    ]);
    expect(labelled.code, labelled.stderr).toBe(0);
    expect(await notes(ns)).not.toMatch(warning);
  });
});

describe('NOTES on Secrets the values name', () => {
  it('warn of a named Secret missing, or missing a key, where the release goes; not of one helm cannot see', async () => {
    const ns = (await testNamespace('chart-notes-secrets')).namespace;
    const values = {
      blob: { secret: { existingSecret: 'signing' } },
      archive: { postgres: { bundled: false, existingSecret: 'pg' } },
    };
    const notes = async (v: object, namespace = ns) => {
      const r = await installDryRun(kubeconfig, v, { namespace });
      expect(r.code, r.stderr).toBe(0);
      return r.notes;
    };
    const warnings = (text: string) => text.match(/^WARNING: Secret .*$/gm) ?? [];
    expect(warnings(await notes(values))).toEqual([
      `WARNING: Secret signing (blob.secret.existingSecret) is not in namespace ${ns}: the Pods that read it`,
      `WARNING: Secret pg (archive.postgres.existingSecret) is not in namespace ${ns}: the Pods that read it`,
    ]);
    for (const [name, key] of [
      ['signing', 'signing-secret'],
      ['pg', 'uri'],
    ]) {
      const made = await kubectl(kubeconfig, [
        '-n',
        ns,
        'create',
        'secret',
        'generic',
        name!,
        `--from-literal=${key}=x`,
      ]);
      expect(made.code, made.stderr).toBe(0);
    }
    expect(warnings(await notes(values))).toEqual([
      'WARNING: Secret pg (archive.postgres.existingSecret) has no key url: the Pods that read',
    ]);
    expect(
      warnings(
        await notes({ ...values, archive: { postgres: { ...values.archive.postgres, urlKey: 'uri' } } }),
      ),
    ).toEqual([]);
    // A namespace helm --create-namespace has yet to make: nothing there to look at, so no word.
    expect(warnings(await notes(values, `${ns}-new`))).toEqual([]);

    // The bundled server reading the Secret too: without the superuser's password a new data
    // directory is not initialized (the service's role and the url are there).
    const bundled = { archive: { postgres: { bundled: true, existingSecret: 'pg-bundled' } } };
    const made = await kubectl(kubeconfig, [
      ...['-n', ns, 'create', 'secret', 'generic', 'pg-bundled'],
      ...[
        '--from-literal=url=postgres://genjobs:x@genjobs-postgres:5432/genjobs',
        '--from-literal=password=x',
      ],
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(warnings(await notes(bundled))).toEqual([
      'WARNING: Secret pg-bundled (archive.postgres.existingSecret) has no key adminPassword, the',
    ]);
    const patched = await kubectl(kubeconfig, [
      ...['-n', ns, 'patch', 'secret', 'pg-bundled', '--type=merge'],
      ...['-p', JSON.stringify({ stringData: { adminPassword: 'y' } })],
    ]);
    expect(patched.code, patched.stderr).toBe(0);
    expect(warnings(await notes(bundled))).toEqual([]);
  });
});

describe('NOTES on plain HTTP', () => {
  it('warn when clients reach the service over http://, not over TLS or through a port-forward', async () => {
    const ns = (await testNamespace('chart-notes-tls')).namespace;
    const ingress = { enabled: true, host: 'gen.example.com' };
    const notes = async (values: object) => {
      const r = await installDryRun(kubeconfig, values, { namespace: ns });
      expect(r.code, r.stderr).toBe(0);
      return r.notes;
    };
    expect(await notes({ ingress })).toMatch(
      /WARNING: clients reach genjobs at http:\/\/gen\.example\.com, over plain HTTP/,
    );
    expect(await notes({ ingress: { ...ingress, tls: { enabled: true } } })).not.toContain('plain HTTP');
    expect(await notes({ publicUrl: 'https://gen.example.com' })).not.toContain('plain HTTP');
    expect(await notes({})).not.toContain('plain HTTP'); // http://127.0.0.1:8080, a port-forward
  });
});

describe('NOTES on how the api is published', () => {
  it('warn of a LoadBalancer or NodePort Service, a TLS Secret nothing makes, and a publicUrl the Ingress does not serve', async () => {
    const ns = (await testNamespace('chart-notes-expose')).namespace;
    const notes = async (values: object) => {
      const r = await installDryRun(kubeconfig, values, { namespace: ns });
      expect(r.code, r.stderr).toBe(0);
      return r.notes;
    };
    const exposed = await notes({ api: { service: { type: 'LoadBalancer' } } });
    expect(exposed).toMatch(
      /WARNING: the api's Service is of type LoadBalancer: it publishes the api port as it is, over\nplain HTTP/,
    );
    expect(exposed).toContain('(unset: every file and output URL points at http://127.0.0.1:8080)');
    expect(exposed).not.toContain('port-forward');
    const ingress = { enabled: true, host: 'gen.example.com', tls: { enabled: true } };
    const tls = await notes({ ingress, publicUrl: 'https://other.example.com/genjobs/' });
    expect(tls).toMatch(
      /NOTE: the Ingress serves TLS with the Secret genjobs-tls, which this chart does not make/,
    );
    expect(tls).toMatch(
      /WARNING: publicUrl \(https:\/\/other\.example\.com\/genjobs\/\) is not on ingress\.host/,
    );
    expect(tls).toMatch(/WARNING: publicUrl has the path \/genjobs\/, but the chart's Ingress routes/);
    expect(tls).toContain('export GENJOBS_URL=https://other.example.com/genjobs GENJOBS_API_KEY');
    const plain = await notes({
      ingress: { ...ingress, tls: { enabled: true, secretName: 'mine' } },
      publicUrl: 'https://gen.example.com/',
      jobs: { keepFinished: 600 },
    });
    expect(plain).not.toMatch(/WARNING: (publicUrl|the api's Service)|NOTE: the Ingress/);
    expect(plain).toContain('export GENJOBS_URL=https://gen.example.com GENJOBS_API_KEY');
    expect(plain).toContain('finished jobs move to PostgreSQL 600s after they end');
  });
});

describe('one release per namespace', () => {
  it("an install beside another release's controller fails, naming it; the release itself passes", async () => {
    const ns = (await testNamespace('chart-twice')).namespace;
    const { objects } = await render({}, { namespace: ns, release: 'first' });
    // Its controller Deployment is what the guard looks for; no Pod needs to run.
    const controller = find(objects, 'Deployment', 'first-controller');
    controller.spec.replicas = 0;
    const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], stringify(controller));
    expect(applied.code, applied.stderr).toBe(0);

    const second = await installDryRun(kubeconfig, {}, { namespace: ns, release: 'second' });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`namespace ${ns} already runs genjobs (release "first"`);
    expect(second.stderr).toContain('install one release per namespace');
    // Its own upgrade finds only its own controller.
    const again = await run(await helm(), [
      'template',
      'first',
      CHART,
      '--namespace',
      ns,
      '--dry-run=server',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('upgrading', () => {
  it('the CRD update the README and the NOTES give before `helm upgrade` is accepted', async () => {
    const command = (text: string) => /kubectl apply --server-side[^\n#]*crds\//.exec(text)?.[0];
    const readme = command(await readFile(join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(readme).toBe('kubectl apply --server-side --force-conflicts -f charts/genjobs/crds/');
    expect(command(await readFile(join(CHART, 'templates/NOTES.txt'), 'utf8'))).toBe(readme);
    const args = readme!
      .split(' ')
      .slice(1)
      .map((a) => (a === 'charts/genjobs/crds/' ? join(CHART, 'crds') : a));
    const r = await kubectl(kubeconfig, [...args, '--dry-run=server']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('generationjobs.genjobs.io serverside-applied (server dry run)');
  });

  it('so is the one for a packaged chart, which reads the CRDs with `helm show crds`', async () => {
    const pipe = /helm show crds <chart> --version <new version> \| (kubectl apply [^\n]*-f -)\n/.exec(
      await readFile(join(CHART, 'templates/NOTES.txt'), 'utf8'),
    );
    expect(pipe?.[1]).toBe('kubectl apply --server-side --force-conflicts -f -');
    expect(await readFile(join(REPO_ROOT, 'README.md'), 'utf8')).toContain(
      `helm show crds <chart> --version <version> | ${pipe![1]}`,
    );
    const crds = await run(await helm(), ['show', 'crds', CHART]);
    expect(crds.code, crds.stderr).toBe(0);
    const r = await kubectl(kubeconfig, [...pipe![1]!.split(' ').slice(1), '--dry-run=server'], crds.stdout);
    expect(r.code, r.stderr).toBe(0);
    // Every CRD, not the last one only: each file starts with "---", which `helm show crds`
    // does not add between them.
    const applied = r.stdout.split('\n').filter((l) => l.endsWith('serverside-applied (server dry run)'));
    expect(applied).toHaveLength((await readdir(join(CHART, 'crds'))).length);
  });
});

describe('RBAC of the rendered Roles, asked of the apiserver', () => {
  let ns: string;
  let webhookNs: string;
  const sa = (name: string) => `system:serviceaccount:${ns}:genjobs-${name}`;
  async function can(who: string, verb: string, resource: string, namespace = ns): Promise<boolean> {
    // kind/status is a subresource; kubectl reads kind/x as the object named x.
    const [kind, sub] = resource.split('/');
    const subresource = sub === 'status' || sub === 'finalizers' ? ['--subresource', sub] : [];
    const r = await kubectl(kubeconfig, [
      'auth',
      'can-i',
      verb,
      subresource.length ? kind! : resource,
      ...subresource,
      '--namespace',
      namespace,
      '--as',
      who,
    ]);
    if (r.code !== 0 && r.stdout.trim() !== 'no') throw new Error(`kubectl auth can-i failed: ${r.stderr}`);
    return r.stdout.trim() === 'yes';
  }

  beforeAll(async () => {
    const kube = await testNamespace('chart-rbac');
    ns = kube.namespace;
    webhookNs = `${ns}-wh`;
    await ensureNamespace(kube, webhookNs);
    const { objects } = await render(
      {
        webhooks: { secretNamespace: webhookNs, createSecretNamespace: false },
        worker: { modelCredentialSecrets: ['acme-token'] },
      },
      { namespace: ns },
    );
    const rbac = objects.filter((o: Manifest) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind));
    const r = await kubectl(kubeconfig, ['apply', '-f', '-'], rbac.map((o) => stringify(o)).join('---\n'));
    expect(r.code, r.stderr).toBe(0);
    // The authorizer sees new bindings through its informers, a moment after the write.
    await eventually(
      () => can(sa('controller'), 'create', 'pods'),
      10_000,
      'the RoleBindings to take effect',
    );
  });

  it.each([
    ['get', 'generationjobs.genjobs.io', true],
    ['create', 'generationjobs.genjobs.io', true],
    ['update', 'generationjobs.genjobs.io/status', true],
    ['update', 'accounts.genjobs.io/status', true],
    ['patch', 'generationjobs.genjobs.io/status', false],
    // Minting keys, making accounts and writing grants (the spec) are the admin's.
    ['create', 'accounts.genjobs.io', false],
    ['update', 'accounts.genjobs.io', false],
    ['create', 'apikeys.genjobs.io', false],
    ['update', 'apikeys.genjobs.io', false],
    ['watch', 'configmaps', true],
    ['create', 'events', true],
    ['delete', 'generationjobs.genjobs.io', false],
    ['delete', 'apikeys.genjobs.io', false],
    ['update', 'configmaps', false],
    ['create', 'pods', false],
    ['get', 'pods', false],
    ['get', 'secrets', false],
    ['create', 'leases.coordination.k8s.io', false],
  ] as const)('the api may %s %s: %s', async (verb, resource, allowed) => {
    expect(await can(sa('api'), verb, resource)).toBe(allowed);
  });

  it.each([
    ['create', 'pods', true],
    ['delete', 'pods', true],
    ['delete', 'generationjobs.genjobs.io', true],
    ['update', 'accounts.genjobs.io/status', true],
    ['update', 'generationjobs.genjobs.io/finalizers', true],
    ['update', 'accounts.genjobs.io', false],
    ['get', 'apikeys.genjobs.io', false],
    ['get', 'pods', false],
    ['watch', 'resourcequotas', true],
    ['update', 'resourcequotas', false],
    ['create', 'leases.coordination.k8s.io', true],
    ['update', 'leases.coordination.k8s.io/genjobs-controller', true],
    ['update', 'leases.coordination.k8s.io/someone-else', false],
    ['create', 'generationjobs.genjobs.io', false],
    ['update', 'apikeys.genjobs.io', false],
    ['update', 'configmaps', false],
    ['get', 'secrets', false],
    ['get', 'secrets/genjobs-blob', false],
    ['get', 'secrets/acme-token', true],
    ['update', 'secrets/acme-token', false],
    ['list', 'secrets', false],
  ] as const)('the controller may %s %s in the release namespace: %s', async (verb, resource, allowed) => {
    expect(await can(sa('controller'), verb, resource)).toBe(allowed);
  });

  it.each([
    ['create', 'accounts.genjobs.io', true],
    ['update', 'accounts.genjobs.io', true],
    ['create', 'apikeys.genjobs.io', true],
    ['delete', 'apikeys.genjobs.io', true],
    ['update', 'accounts.genjobs.io/status', false],
    ['create', 'generationjobs.genjobs.io', false],
    ['create', 'pods', false],
    ['get', 'secrets', false],
  ] as const)('the admin ServiceAccount may %s %s: %s', async (verb, resource, allowed) => {
    expect(await can(sa('admin'), verb, resource)).toBe(allowed);
  });

  it('the admin shows and rotates webhook secrets in their own namespace, and reads no other Secret', async () => {
    expect(await can(sa('admin'), 'get', 'secrets/genjobs-webhook-acme', webhookNs)).toBe(true);
    expect(await can(sa('admin'), 'create', 'secrets', webhookNs)).toBe(true);
    expect(await can(sa('admin'), 'update', 'secrets', webhookNs)).toBe(true);
    expect(await can(sa('admin'), 'list', 'secrets', webhookNs)).toBe(false);
    expect(await can(sa('admin'), 'get', 'secrets/genjobs-blob')).toBe(false);
  });

  it('the controller reads and creates webhook Secrets only in their own namespace, and changes or lists none', async () => {
    expect(await can(sa('controller'), 'get', 'secrets/genjobs-webhook-acme', webhookNs)).toBe(true);
    expect(await can(sa('controller'), 'create', 'secrets', webhookNs)).toBe(true);
    expect(await can(sa('controller'), 'update', 'secrets', webhookNs)).toBe(false);
    expect(await can(sa('controller'), 'delete', 'secrets', webhookNs)).toBe(false);
    expect(await can(sa('controller'), 'list', 'secrets', webhookNs)).toBe(false);
    expect(await can(sa('controller'), 'get', 'secrets/genjobs-webhook-acme')).toBe(false);
    expect(await can(sa('api'), 'get', 'secrets', webhookNs)).toBe(false);
  });

  it('the worker ServiceAccount may do nothing', async () => {
    for (const [verb, resource] of [
      ['get', 'pods'],
      ['list', 'configmaps'],
      ['get', 'secrets'],
      ['get', 'generationjobs.genjobs.io'],
      ['create', 'events'],
    ] as const) {
      expect(await can(sa('worker'), verb, resource), `${verb} ${resource}`).toBe(false);
    }
  });
});
