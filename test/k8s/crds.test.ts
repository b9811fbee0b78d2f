import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kube } from '../../src/k8s/client.ts';
import { apiMessage, statusCode } from '../../src/k8s/errors.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';
import { kubeconfigPath, testNamespace } from '../support/cluster.ts';

const run = promisify(execFile);
let kube: Kube;
let r: Resources;

beforeAll(async () => {
  kube = await testNamespace('crds');
  r = resources(kube);
});

const job = (name: string, overrides: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: {
    account: 'acme',
    model: 'genjobs/aurora/text-to-image',
    version: 'v1.0',
    input: { prompt: 'a lighthouse', nested: { free: ['form'] } },
    costMicroCents: 134000,
    ...overrides,
  },
});

async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(statusCode(err)).toBe(422);
    return apiMessage(err);
  }
  throw new Error('expected the apiserver to reject the object');
}

describe('CRDs on the real apiserver', () => {
  it('accept a valid GenerationJob and keep its free-form input', async () => {
    const created = await r.jobs.create(job('ok-1'));
    expect(created.spec.input).toEqual({ prompt: 'a lighthouse', nested: { free: ['form'] } });
    const withStatus = await r.jobs.updateStatus({ ...created, status: { phase: 'pending', progress: 0 } });
    expect(withStatus.status?.phase).toBe('pending');
  });

  it('reject negative money, a malformed slug and an unknown phase with the apiserver message', async () => {
    expect(await rejection(r.jobs.create(job('bad-cost', { costMicroCents: -1 })))).toMatch(/costMicroCents/);
    expect(await rejection(r.jobs.create(job('bad-slug', { model: 'not a slug' })))).toMatch(/spec.model/);
    const created = await r.jobs.create(job('bad-phase'));
    const msg = await rejection(r.jobs.updateStatus({ ...created, status: { phase: 'exploded' as never } }));
    expect(msg).toMatch(/status.phase/);
    expect(
      await rejection(
        r.accounts.create({ metadata: { name: 'neg' }, spec: { plan: 'free', grantedMicroCents: -5 } }),
      ),
    ).toMatch(/grantedMicroCents/);
    expect(
      await rejection(
        r.apiKeys.create({
          metadata: { name: 'k' },
          spec: { account: 'a', scopes: ['admin' as never], keyHash: 'x', prefix: 'gjk_ab' },
        }),
      ),
    ).toMatch(/scopes|keyHash/);
    expect(
      await rejection(
        r.uploads.create({
          metadata: { name: 'u' },
          spec: {
            account: 'a',
            filename: 'f.txt',
            contentType: 'text/plain' as never,
            maxSize: 1,
            objectKey: 'uploads/a/1',
            expiresAt: new Date().toISOString(),
          },
        }),
      ),
    ).toMatch(/contentType/);
  });

  it('status writes go through the subresource only', async () => {
    const created = await r.jobs.create(job('status-only'));
    const updated = await r.jobs.update({ ...created, status: { phase: 'completed' } });
    // A job nobody wrote a status for reads pending: the schema's default, not a write.
    expect(updated.status).toEqual({ phase: 'pending' });
  });

  it('kubectl get generationjobs and get genjobs print the printer columns', async () => {
    const created = await r.jobs.get('ok-1');
    expect(created).toBeDefined();
    await r.accounts.create({ metadata: { name: 'acme' }, spec: { plan: 'pro', grantedMicroCents: 1000 } });
    const env = { ...process.env, KUBECONFIG: kubeconfigPath() };
    const { stdout } = await run('kubectl', ['get', 'generationjobs', '-n', kube.namespace], { env });
    const header = stdout.split('\n')[0] ?? '';
    expect(header.split(/\s+/)).toEqual(['NAME', 'STATUS', 'ACCOUNT', 'MODEL', 'PROGRESS', 'COST', 'AGE']);
    expect(stdout).toMatch(/ok-1\s+pending\s+acme\s+genjobs\/aurora\/text-to-image\s+0\s+134000/);
    // -o wide adds why a failed job failed.
    const failed = await r.jobs.create(job('failed-1'));
    await r.jobs.updateStatus({
      ...failed,
      status: { phase: 'failed', error: { code: 'GENERATION_FAILED', message: 'the model failed' } },
    });
    const wide = await run('kubectl', ['get', 'gj', 'failed-1', '-o', 'wide', '-n', kube.namespace], { env });
    expect(wide.stdout.split('\n')[0]!.split(/\s+/)).toContain('ERROR');
    expect(wide.stdout).toMatch(/failed-1\s+failed\s+acme\s.*GENERATION_FAILED/);
    const all = await run('kubectl', ['get', 'genjobs', '-n', kube.namespace], { env });
    expect(all.stdout).toContain('generationjob.genjobs.io/ok-1');
    expect(all.stdout).toMatch(/account.genjobs.io\/acme\s+pro/);
    expect(all.stdout).toMatch(/NAME\s+PLAN\s+BALANCE\s+HELD\s+SPENT\s+GRANTED\s+READY\s+AGE/);
    // No status yet (no controller here): balance, held and spent are blank; the grant shows.
    expect(all.stdout).toMatch(/account.genjobs.io\/acme\s+pro\s+1000\s/);
    const short = await run('kubectl', ['get', 'gj,acct,key,upl', '-n', kube.namespace], { env });
    expect(short.stdout).toContain('ok-1');
  });
});
