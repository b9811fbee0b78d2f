import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-dev-mode-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const cli = join(REPO_ROOT, 'src', 'cli.ts');

it("writes the demo account's key and webhook secret, and the admin commands read its install as a chart's", async () => {
  const dev = spawn(process.execPath, [cli, 'dev'], {
    env: { ...process.env, GENJOBS_DEV_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let banner = '';
    dev.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      dev.stdout.on('data', (chunk: string) => {
        banner += chunk;
        if (banner.includes('Press Ctrl-C')) resolve();
      });
      dev.once('exit', (code) => reject(new Error(`genjobs dev exited ${code} before its banner`)));
    });
    const secretFile = join(dir, 'webhook-secret');
    expect(banner).toContain(`Webhooks:    signed with the secret in ${secretFile}`);
    const secret = (await readFile(secretFile, 'utf8')).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    // The admin command finds the Secret where dev mode says it keeps them: the same
    // secret, and no note that a chart would keep it in another namespace.
    const shown = await promisify(execFile)(process.execPath, [cli, 'accounts', 'webhook-secret', 'demo'], {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
    });
    expect([shown.stdout.trim(), shown.stderr]).toEqual([secret, '']);
    // And it refuses a plan this install does not have, naming the install's.
    const refused = await promisify(execFile)(
      process.execPath,
      [cli, 'accounts', 'create', 'someone', '--plan', 'gold', '--grant', '1'],
      { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') } },
    ).catch((err: { stderr: string }) => err);
    expect(refused.stderr).toMatch(
      /unknown plan "gold": one of free, pro, enterprise \(the plans of the install in namespace genjobs\)/,
    );
  } finally {
    dev.kill('SIGINT');
    await once(dev, 'exit');
  }
}, 120_000);
