import { beforeAll, describe, expect, it } from 'vitest';
import type { Kube } from '../../src/k8s/client.ts';
import { apiMessage, statusCode } from '../../src/k8s/errors.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { KUBECTL, run } from '../chart/helm.ts';
import { kubeconfigPath, testNamespace } from '../support/cluster.ts';

let kube: Kube;
let r: Resources;

beforeAll(async () => {
  kube = await testNamespace('immutable');
  r = resources(kube);
});

async function refused(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(statusCode(err)).toBe(422);
    return apiMessage(err);
  }
  throw new Error('expected the apiserver to refuse the change');
}

const newJob = (name: string, cost: number) => ({
  metadata: { name },
  spec: {
    account: 'imm',
    model: 'genjobs/reference-image/text-to-image',
    version: 'v1.0',
    input: { prompt: 'a lighthouse' },
    costMicroCents: cost,
  },
});

describe('specs are immutable once created (CEL transition rules)', () => {
  it('kubectl patch of a GenerationJob spec answers 422; settlement refunds exactly what was reserved', async () => {
    const cost = 2_400_000;
    await r.accounts.create({ metadata: { name: 'imm' }, spec: { plan: 'pro', grantedMicroCents: cost } });
    const ledger = new Ledger({ accounts: r.accounts });
    const reserved = await ledger.run('imm', { kind: 'reserve', jobId: 'imm-1', cost, maxConcurrent: 5 });
    expect(reserved.ok).toBe(true);
    await r.jobs.create(newJob('imm-1', cost));

    const patch = await run(
      KUBECTL,
      ['-n', kube.namespace, 'patch', 'gj', 'imm-1', '--type=merge', '-p', '{"spec":{"costMicroCents":1}}'],
      { env: { KUBECONFIG: kubeconfigPath() } },
    );
    expect(patch.code).not.toBe(0);
    expect(patch.stderr).toMatch(/spec is immutable/);
    expect(await refused(r.jobs.patch('imm-1', { spec: { input: { prompt: 'something dearer' } } }))).toMatch(
      /immutable/,
    );
    const job = (await r.jobs.get('imm-1'))!;
    expect(job.spec.costMicroCents).toBe(cost);
    expect(job.spec.input).toEqual({ prompt: 'a lighthouse' });
    // Status and metadata stay writable: the lifecycle goes on.
    const failed = await r.jobs.updateStatus({ ...job, status: { phase: 'failed' } });
    expect(failed.status?.phase).toBe('failed');
    await r.jobs.patch('imm-1', { metadata: { labels: { checked: 'yes' } } });

    const refund = await ledger.run('imm', { kind: 'refund', jobId: 'imm-1' });
    expect(refund).toEqual({ ok: true, amount: cost });
    const account = (await r.accounts.get('imm'))!;
    expect(account.status?.balanceMicroCents).toBe(cost);
    expect(imbalance(account.status)).toBe(0);
  });

  it("an Upload's spec cannot change", async () => {
    await r.uploads.create({
      metadata: { name: 'upl-1' },
      spec: {
        account: 'imm',
        filename: 'a.png',
        contentType: 'image/png',
        maxSize: 10_000_000,
        objectKey: 'uploads/imm/0a1b2c3d',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(await refused(r.uploads.patch('upl-1', { spec: { maxSize: 100_000_000 } }))).toMatch(/immutable/);
    expect(await refused(r.uploads.patch('upl-1', { spec: { account: 'someone-else' } }))).toMatch(
      /immutable/,
    );
  });

  it("an ApiKey's account, scopes, hash and expiry cannot change; disabled can", async () => {
    await r.apiKeys.create({
      metadata: { name: 'key-1' },
      spec: { account: 'imm', scopes: ['check_status'], keyHash: 'a'.repeat(64), prefix: 'gjk_abcdefgh' },
    });
    for (const spec of [
      { scopes: ['check_status', 'submit_job'] },
      { account: 'someone-else' },
      { keyHash: 'b'.repeat(64) },
      { expiresAt: '2099-01-01T00:00:00Z' },
    ]) {
      expect(await refused(r.apiKeys.patch('key-1', { spec })), JSON.stringify(spec)).toMatch(/immutable/);
    }
    const disabled = await r.apiKeys.patch('key-1', { spec: { disabled: true } });
    expect(disabled.spec.disabled).toBe(true);
  });
});

describe("a finished job's phase is final (CEL transition rule on status)", () => {
  it('a completed, failed or cancelled job cannot be given another phase; its other status fields can change', async () => {
    for (const [i, phase] of (['completed', 'failed', 'cancelled'] as const).entries()) {
      const name = `final-${i}`;
      await r.jobs.create(newJob(name, 1));
      await r.jobs.patchStatus(name, { status: { phase: 'processing' } });
      await r.jobs.patchStatus(name, { status: { phase } });
      for (const other of ['pending', 'processing', 'completed', 'failed', 'cancelled'].filter(
        (p) => p !== phase,
      )) {
        expect(await refused(r.jobs.patchStatus(name, { status: { phase: other } }))).toMatch(
          /a finished GenerationJob's phase is final/,
        );
      }
      // The webhook's delivery state, the archive's marks: still written to a finished job.
      await r.jobs.patchStatus(name, { status: { progress: 100 } });
      expect((await r.jobs.get(name))?.status).toMatchObject({ phase, progress: 100 });
    }
  });
});
