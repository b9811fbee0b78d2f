import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';

const exec = promisify(execFile);

export const CHART = join(REPO_ROOT, 'charts', 'genjobs');
export const KUBECTL = '/usr/bin/kubectl';

/** The Kubernetes version of the local control plane: manifests are rendered and linted for it. */
export const KUBE_VERSION = /^require k8s\.io\/kubernetes v(\S+)$/m.exec(
  readFileSync(join(REPO_ROOT, 'tools/controlplane/k8s/go.mod'), 'utf8'),
)![1]!;

/** A rendered Kubernetes object, loosely typed: tests read it field by field. */
export type Manifest = {
  apiVersion: string;
  kind: string;
  // biome-ignore lint/suspicious/noExplicitAny: manifests are asserted field by field.
  metadata: { name: string; namespace?: string; [k: string]: any };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are asserted field by field.
  [k: string]: any;
};

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; a non-zero exit is a result, not an exception. */
export async function run(
  file: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  const child = exec(file, args, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...options.env } });
  if (options.input !== undefined) child.child.stdin?.end(options.input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? String(err),
    };
  }
}

let helmPath: Promise<string> | undefined;

/** The pinned helm, built from its Go module on first use (tools/helm/build.sh; cached). */
export function helm(): Promise<string> {
  helmPath ??= run('bash', [join(REPO_ROOT, 'tools/helm/build.sh')]).then((r) => {
    if (r.code !== 0) throw new Error(`tools/helm/build.sh failed:\n${r.stderr}`);
    return r.stdout.trim();
  });
  return helmPath;
}

/** Runs helm with `args` and `--values` a file of the values, removed when helm is done. */
async function helmWithValues(args: string[], values: object): Promise<Run> {
  const bin = await helm();
  const dir = await mkdtemp(join(tmpdir(), 'genjobs-values-'));
  try {
    const file = join(dir, 'values.yaml');
    await writeFile(file, stringify(values));
    return await run(bin, [...args, '--values', file]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
}

/** `helm template` of the chart with the values; its exit code and output. */
export function template(values: object = {}, o: RenderOptions = {}): Promise<Run> {
  return helmWithValues(
    [
      'template',
      o.release ?? 'genjobs',
      CHART,
      '--namespace',
      o.namespace ?? 'genjobs',
      '--kube-version',
      KUBE_VERSION,
    ],
    values,
  );
}

/**
 * `helm install --dry-run=server` of the chart against the cluster of the kubeconfig, which
 * answers the templates' `lookup`s; nothing is created. Its output ends with the NOTES.
 */
export async function installDryRun(
  kubeconfig: string,
  values: object = {},
  o: RenderOptions = {},
): Promise<Run & { notes: string }> {
  const r = await helmWithValues(
    [
      'install',
      o.release ?? 'genjobs',
      CHART,
      '--namespace',
      o.namespace ?? 'genjobs',
      '--dry-run=server',
      '--kubeconfig',
      kubeconfig,
    ],
    values,
  );
  return { ...r, notes: r.stdout.split('\nNOTES:\n')[1] ?? '' };
}

/** `helm lint --strict` of the chart with the values. */
export function lint(values: object = {}): Promise<Run> {
  return helmWithValues(['lint', '--strict', CHART, '--kube-version', KUBE_VERSION], values);
}

/** Renders and parses; fails the test with helm's message when rendering fails. */
export async function render(
  values: object = {},
  o: RenderOptions = {},
): Promise<{ text: string; objects: Manifest[] }> {
  const r = await template(values, o);
  if (r.code !== 0) throw new Error(`helm template failed:\n${r.stderr}`);
  return { text: r.stdout, objects: parseManifests(r.stdout) };
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`invalid YAML: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function find(objects: Manifest[], kind: string, name: string): Manifest {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  return found;
}

/** The env of a Deployment's first container as name → value (or valueFrom). */
export function envOf(deployment: Manifest): Record<string, unknown> {
  const env = deployment.spec.template.spec.containers[0].env as Array<{
    name: string;
    value?: string;
    valueFrom?: unknown;
  }>;
  return Object.fromEntries(env.map((e) => [e.name, e.value ?? e.valueFrom]));
}

/** kubectl against the run's control plane. */
export function kubectl(kubeconfig: string, args: string[], input?: string): Promise<Run> {
  return run(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { input });
}
