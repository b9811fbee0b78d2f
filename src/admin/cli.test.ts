import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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

it('says which kubeconfig is missing when there is none at all (not client-node’s made-up localhost:8080)', async () => {
  const home = await mkdtemp(join(tmpdir(), 'genjobs-nohome-'));
  try {
    const { KUBECONFIG: _, ...env } = process.env;
    const err = (await promisify(execFile)(process.execPath, [CLI, 'accounts', 'list'], {
      env: { ...env, HOME: home },
    }).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(2);
    expect(err.stderr.trim()).toMatch(
      /^genjobs: no kubeconfig found \(\$KUBECONFIG, ~\/\.kube\/config\) and not running in a cluster/,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
