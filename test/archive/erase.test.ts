import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSecrets, webhookSecretName } from '../../src/accounts/webhook-secret.ts';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { uploadFolder } from '../../src/blob/keys.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { ERASE_ANNOTATION } from '../../src/jobs/labels.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';
import { getSecret } from '../../src/k8s/secrets.ts';
import { eventually, kubeconfigPath } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { finishedJob } from './fixtures.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';
const VIDEO = 'genjobs/reference-video/text-to-video';
const run = promisify(execFile);

let pg: LocalPostgres;
let s: TestStack;
let archive: Archive;

beforeAll(async () => {
  pg = await LocalPostgres.start();
  s = await startTestStack('erase', {
    env: { GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: pg.url, GENJOBS_KEEP_FINISHED: '1s' },
  });
  archive = new Archive(postgresClient({ connectionString: pg.url }));
});
afterAll(async () => {
  await s?.stop();
  await archive?.close();
  await pg?.stop();
});

const files = (...parts: string[]) => join(s.config.GENJOBS_BLOB_DIR ?? '', 'objects', ...parts);

async function submit(key: string, model: string, input: Record<string, unknown>): Promise<string> {
  const res = await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input } });
  expect(res.status).toBe(200);
  return (await res.json()).jobId;
}

/** A job that finished and left etcd for the archive, its files kept. */
async function archivedJob(key: string): Promise<string> {
  const id = await submit(key, IMAGE, { prompt: 'a lighthouse at dusk' });
  await eventually(
    async () => (await archive.getJob(id)) !== undefined && (await s.r.jobs.get(id)) === undefined,
    90_000,
    `job ${id} archived`,
  );
  expect(existsSync(files('jobs', id))).toBe(true);
  return id;
}

async function upload(key: string): Promise<string> {
  const res = await s.call('/v1/uploads/presign', {
    method: 'POST',
    key,
    json: { filename: 'cat.png', contentType: 'image/png' },
  });
  expect(res.status).toBe(200);
  const { uploadUrl } = (await res.json()).data as { uploadUrl: string };
  const u = new URL(uploadUrl);
  const put = await fetch(`${s.api.url}${u.pathname}${u.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: new Uint8Array([137, 80, 78, 71, 1, 2, 3]),
  });
  expect(put.status).toBe(200);
  return u.pathname;
}

const genjobs = (...args: string[]) =>
  run(process.execPath, [`${REPO_ROOT}bin/genjobs.js`, '-n', s.kube.namespace, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath() },
  });

describe('genjobs accounts delete', () => {
  it('erases an account: keys, webhook secret, running and archived jobs, uploads, files and history; no one else', async () => {
    const key = await s.account({ name: 'leaving', plan: 'enterprise' });
    const otherKey = await s.account({ name: 'staying', plan: 'enterprise' });
    const leaving = await s.admin.getAccount('leaving');
    await genjobs('accounts', 'webhook-secret', 'leaving');
    // A deleted namesake's row (created before this account): not this account's to erase.
    await archive.upsertJobs([
      finishedJob('namesake-row', { account: 'leaving', createdAt: '2020-01-01T00:00:00Z' }),
    ]);

    const [archived, kept] = await Promise.all([archivedJob(key), archivedJob(otherKey)]);
    const uploaded = await upload(key);
    expect(existsSync(files(uploaded.replace(/^\/files\//, '')))).toBe(true);
    const running = await submit(key, VIDEO, { prompt: 'a slow one', duration: 8 });
    await eventually(
      async () => (await s.r.jobs.get(running))?.status?.phase === 'processing',
      60_000,
      'running',
    );

    const out = await genjobs('accounts', 'delete', 'leaving', '--timeout', '2m');
    expect(out.stdout).toMatch(/^account leaving deleted: 1 key revoked, /);
    expect(out.stdout).toContain('its history erased');

    expect(await s.r.accounts.get('leaving')).toBeUndefined();
    expect(await s.admin.listKeys('leaving')).toEqual([]);
    expect(await getSecret(s.kube, webhookSecretName('leaving'))).toBeUndefined();
    expect((await s.r.jobs.list({ fieldSelector: 'spec.account=leaving' })).items).toEqual([]);
    expect((await s.r.uploads.list({ labelSelector: 'genjobs.io/account=leaving' })).items).toEqual([]);
    // The running job's worker Pod went with it, and it was not charged (the account is gone).
    await eventually(
      async () =>
        (await s.kube.core.listNamespacedPod({ namespace: s.kube.namespace })).items.every(
          (p) => p.metadata?.labels?.['genjobs.io/job'] !== running,
        ),
      30_000,
      "the running job's Pod deleted",
    );
    expect(await archive.getJob(archived)).toBeUndefined();
    expect(await archive.accountRows('leaving', { since: leaving.metadata.creationTimestamp }, 10)).toEqual(
      [],
    );
    expect(await archive.getJob('namesake-row')).toBeDefined();
    await eventually(async () => !existsSync(files('jobs', running)), 30_000, "the running job's files");
    expect(existsSync(files('jobs', archived))).toBe(false);
    expect(existsSync(files('uploads', uploadFolder(leaving.metadata.uid ?? '')))).toBe(false);
    // Its key is refused: the account is gone.
    expect((await s.call(`/v1/jobs/${archived}`, { key })).status).toBe(401);

    // The other account's history, files and key are untouched.
    const res = await s.call(`/v1/jobs/${kept}`, { key: otherKey });
    expect([res.status, (await res.json()).status]).toEqual([200, 'completed']);
    expect(existsSync(files('jobs', kept))).toBe(true);

    // The name is free again: nothing of the old account is left to take over.
    await s.admin.createAccount({ name: 'leaving' });
  });

  it('keeps the history with --keep-history, and refuses the keys of an account marked for deletion at once', async () => {
    const key = await s.account({ name: 'moving', plan: 'enterprise' });
    const archived = await archivedJob(key);
    const moving = await s.admin.getAccount('moving');

    // Marked by hand (kubectl annotate), keys not yet revoked: the api refuses them anyway.
    await s.r.accounts.update({
      ...moving,
      metadata: { ...moving.metadata, annotations: { [ERASE_ANNOTATION]: 'keep-history' } },
    });
    await eventually(
      async () => {
        const res = await s.call(`/v1/jobs/${archived}`, { key });
        return res.status === 401 && (await res.json()).detail.includes('being deleted');
      },
      10_000,
      'the key refused',
    );

    const progress: string[] = [];
    const { keysRevoked } = await s.admin.deleteAccount('moving', 'keep-history', {
      timeoutMs: 60_000,
      pollMs: 200,
      progress: (m) => progress.push(m),
    });
    expect(keysRevoked).toBe(1);
    expect(progress.join('\n')).toContain('waiting for the controller');
    expect(await s.r.accounts.get('moving')).toBeUndefined();
    expect(await archive.getJob(archived)).toBeDefined();
    expect(existsSync(files('jobs', archived))).toBe(true);
  });

  it('tells the admin to run it again when the controller does not finish in time, and a second run finishes', async () => {
    await s.account({ name: 'slowly' });
    await s.controller.stop();
    try {
      await expect(s.admin.deleteAccount('slowly', 'all', { timeoutMs: 500, pollMs: 100 })).rejects.toThrow(
        new RegExp(
          `has not finished erasing account slowly .*kubectl -n ${s.kube.namespace} get account slowly -o yaml.* run the command again`,
        ),
      );
      expect(await s.r.accounts.get('slowly')).toBeDefined();
    } finally {
      s.controller = await s.startController({ GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: pg.url });
    }
    await s.admin.deleteAccount('slowly', 'all', { timeoutMs: 60_000, pollMs: 200 });
    expect(await s.r.accounts.get('slowly')).toBeUndefined();
  });

  it('does nothing for an erase annotation that is neither all nor keep-history, and says so', async () => {
    const key = await s.account({ name: 'typo', plan: 'enterprise' });
    const archived = await archivedJob(key);
    const typo = await s.admin.getAccount('typo');
    await s.r.accounts.update({
      ...typo,
      metadata: { ...typo.metadata, annotations: { [ERASE_ANNOTATION]: 'keep_history' } },
    });
    const condition = async () =>
      (await s.r.accounts.get('typo'))?.status?.conditions?.find((c) => c.type === 'Erased');
    await eventually(async () => (await condition())?.reason === 'InvalidValue', 10_000, 'the refusal');
    expect(await condition()).toMatchObject({
      status: 'False',
      message: expect.stringContaining('"keep_history"'),
    });
    expect(await archive.getJob(archived)).toBeDefined();
    expect(existsSync(files('jobs', archived))).toBe(true);
    // Set right, it goes on.
    await s.admin.deleteAccount('typo', 'all', { timeoutMs: 60_000, pollMs: 200 });
    expect(await archive.getJob(archived)).toBeUndefined();
  });

  it("finds the webhook Secret in the chart's namespace for them, and a second run removes what a plain delete left", async () => {
    const webhooks = `${s.kube.namespace}-webhooks`;
    await ensureNamespace(s.kube, webhooks);
    await s.account({ name: 'helmed' });
    const owner = { name: 'helmed', uid: (await s.admin.getAccount('helmed')).metadata.uid };
    await new WebhookSecrets({ kube: s.kube, namespace: webhooks }).ensure('helmed', owner);
    const out = await genjobs('accounts', 'delete', 'helmed', '-o', 'json');
    expect(JSON.parse(out.stdout)).toMatchObject({ webhookSecretNamespaces: [webhooks], history: 'erased' });
    expect(await getSecret(s.kube, webhookSecretName('helmed'), webhooks)).toBeUndefined();

    // An Account deleted by hand leaves its keys, Secret and jobs: the command removes what
    // the admin may (keys, Secret) and names what is left (jobs: the controller's, by kubectl).
    const key = await s.account({ name: 'leftover', plan: 'enterprise' });
    await new WebhookSecrets({ kube: s.kube, namespace: webhooks }).ensure('leftover', {
      name: 'leftover',
      uid: (await s.admin.getAccount('leftover')).metadata.uid,
    });
    const job = await submit(key, VIDEO, { prompt: 'left behind', duration: 8 });
    await s.r.accounts.delete('leftover');
    const again = (await genjobs('accounts', 'delete', 'leftover').catch((e: unknown) => e)) as {
      code: number;
      stdout: string;
      stderr: string;
    };
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(
      /^account leftover was already deleted; removed what was left: 1 key revoked, its webhook secret deleted/,
    );
    expect(again.stderr).toMatch(
      /1 jobs and 0 uploads of account leftover are still in the cluster.*delete gj,upl -l genjobs.io\/account=leftover.*history erase --account leftover/,
    );
    expect(await s.admin.listKeys('leftover')).toEqual([]);
    await s.r.jobs.delete(job);
    await eventually(async () => (await s.r.jobs.get(job)) === undefined, 10_000, 'the job deleted');
    const third = await genjobs('accounts', 'delete', 'leftover').catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(third).toMatchObject({ code: 2, stderr: expect.stringContaining('account leftover not found') });
  });
});
