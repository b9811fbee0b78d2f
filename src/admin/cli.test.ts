import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const CLI = new URL('../cli.ts', import.meta.url).pathname;

it.each(['0s', '0m', '0d'])(
  'keys create --expires-in %s is a usage error (one line, exit 2) before any connection',
  async (lifetime) => {
    const err = (await promisify(execFile)(
      process.execPath,
      [CLI, 'keys', 'create', '--account', 'acme', '--scopes', 'submit_job', '--expires-in', lifetime],
      { env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' } },
    ).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(2);
    expect(err.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^genjobs: .*a lifetime is more than 0: 0[smd] \(leave --expires-in out/),
    ]);
  },
);

it('says which kubeconfig is missing when there is none at all (not client-node’s made-up localhost:8080), and takes dev mode’s when it is the only one', async () => {
  const home = await mkdtemp(join(tmpdir(), 'genjobs-nohome-'));
  try {
    const { KUBECONFIG: _, GENJOBS_DEV_DIR: __, ...env } = process.env;
    const run = () =>
      promisify(execFile)(process.execPath, [CLI, 'accounts', 'list'], { env: { ...env, HOME: home } }).catch(
        (e: unknown) => e,
      ) as Promise<{ code: number; stderr: string }>;
    const none = await run();
    expect(none.code).toBe(2);
    const devKubeconfig = join(home, '.genjobs', 'dev', 'kubeconfig');
    expect(none.stderr.trim()).toBe(
      `genjobs: no kubeconfig found ($KUBECONFIG, ~/.kube/config, dev mode's ${devKubeconfig}) and not running in a cluster: pass --kubeconfig`,
    );
    // Dev mode's kubeconfig, here naming a port where nothing listens: it is the one tried.
    await mkdir(join(home, '.genjobs', 'dev'), { recursive: true });
    await writeFile(
      devKubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: dev, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
        'users: [{name: dev, user: {token: x}}]',
        'contexts: [{name: dev, context: {cluster: dev, user: dev, namespace: genjobs}}]',
        'current-context: dev',
      ].join('\n'),
    );
    const dev = await run();
    expect(dev.stderr).not.toContain('no kubeconfig found');
    expect(dev.stderr).toContain('127.0.0.1:9');
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
