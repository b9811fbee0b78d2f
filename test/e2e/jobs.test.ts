import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_LABEL } from '../../src/controller/job/pod.ts';
import { deletePod } from '../../src/k8s/pods.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { imbalance } from '../../src/ledger/ops.ts';
import { applyImageModel } from '../support/catalogs.ts';
import { eventually, kubeconfigPath } from '../support/cluster.ts';
import { type E2e, REMOTE_URL, startE2e } from '../support/e2e.ts';
import { decodeImage, download, probe } from '../support/media.ts';

const run = promisify(execFile);
let s: E2e;
let key: string;
let inputUrl: string;

beforeAll(async () => {
  s = await startE2e('e2e-jobs', { slots: 3 });
  key = await s.account({ name: 'acme', plan: 'enterprise' });
  // The input image is an upload: its fileUrl works as job input wherever the service runs.
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const { data } = await (
    await s.call('/v1/uploads/presign', {
      method: 'POST',
      key,
      json: { filename: 'input.png', contentType: 'image/png' },
    })
  ).json();
  const put = await fetch(data.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: png,
  });
  expect(put.status).toBeLessThan(300);
  inputUrl = data.fileUrl;
});
afterAll(async () => {
  await s?.stop();
});

const IMAGE = 'genjobs/reference-image/text-to-image';
const EDIT = 'genjobs/reference-image/edit-image';
const VIDEO = 'genjobs/reference-video/text-to-video';

async function submit(model: string, input: Record<string, unknown>) {
  const res = await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input } });
  expect(res.status).toBe(200);
  return (await res.json()).jobId as string;
}

async function finished(jobId: string, timeoutMs = 90_000) {
  return eventually(
    async () => {
      const j = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
      return ['completed', 'failed', 'cancelled'].includes(j.status) ? j : undefined;
    },
    timeoutMs,
    `job ${jobId} to finish`,
  );
}

const balance = async () => (await s.r.accounts.get(s.name('acme')))?.status?.balanceMicroCents ?? 0;
/** The balance once every earlier job is settled (settlements are batched, a moment late). */
const settledBalance = async () => {
  await eventually(
    async () => {
      const st = (await s.r.accounts.get(s.name('acme')))?.status;
      // Credit leases too: a lease's unused credit is back once it closes (docs/money.md).
      return Object.keys(st?.reservations ?? {}).length === 0 && Object.keys(st?.leases ?? {}).length === 0;
    },
    30_000,
    'earlier jobs settled',
  );
  return balance();
};

describe('end to end: submit, run in a Pod, download real media', () => {
  it.each([
    ['1k square', { resolution: '1k' }, 1024, 1024],
    ['2k 16:9', { resolution: '2k', aspect_ratio: '16:9' }, 2048, 1152],
    ['1k 9:16', { aspect_ratio: '9:16' }, 576, 1024],
  ])('text-to-image %s decodes at the requested size', async (_name, input, width, height) => {
    const job = await finished(await submit(IMAGE, { prompt: 'a lighthouse at dusk', ...input }));
    expect(job).toMatchObject({ status: 'completed', progress: 100, error: null });
    expect(job.output).toBe(job.outputs[0].url);
    const file = await download(job.output);
    expect(file.contentType).toBe('image/png');
    expect(await decodeImage(file.path)).toEqual({ format: 'png', width, height });
  });

  it("a finished job's worker grant, readable in its Pod's spec, can no longer replace its output", async () => {
    const jobId = await submit(IMAGE, { prompt: 'final' });
    const job = await finished(jobId);
    const pods = await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `${JOB_LABEL}=${jobId}`,
    });
    const grant = pods.items[0]?.spec?.containers[0]?.env?.find(
      (e) => e.name === 'GENJOBS_BLOB_GRANT',
    )?.value;
    expect(grant).toMatch(/^gj1\./);
    const before = await (await fetch(job.output)).arrayBuffer();
    const overwrite = await fetch(job.output, {
      method: 'PUT',
      headers: { authorization: `Bearer ${grant}`, 'content-type': 'image/png' },
      body: 'not the output',
    });
    expect(overwrite.status).toBe(403);
    expect(await overwrite.json()).toMatchObject({ code: 'SIGNATURE_INVALID', detail: /job has ended/ });
    expect(Buffer.from(await (await fetch(job.output)).arrayBuffer())).toEqual(Buffer.from(before));
  });

  it('a job deleted by hand before it is archived takes its output files with it', async () => {
    const jobId = await submit(IMAGE, { prompt: 'deleted by hand' });
    const job = await finished(jobId);
    expect((await fetch(job.output)).status).toBe(200);
    await s.r.jobs.delete(jobId);
    await eventually(async () => (await fetch(job.output)).status === 404, 30_000, 'its output gone');
  });

  it('edit-image fetches its input (image or image_urls) and returns an edited image', async () => {
    const single = await finished(
      await submit(EDIT, { prompt: 'make it warmer', image: inputUrl, aspect_ratio: '1:1' }),
    );
    expect(single.status).toBe('completed');
    expect(await decodeImage((await download(single.output)).path)).toMatchObject({
      width: 1024,
      height: 1024,
    });
    const list = await finished(await submit(EDIT, { prompt: 'x', image_urls: [inputUrl] }));
    expect(list.status).toBe('completed');
  });

  it.each([
    [{ duration: 4, has_sound: true }, 4, 1280, 720, true],
    [{ duration: '6', has_sound: 'false', aspect_ratio: '9:16' }, 6, 720, 1280, false],
  ])(
    'text-to-video %j is H.264 of the right length and size, audio exactly when asked',
    async (input, seconds, width, height, audio) => {
      const job = await finished(await submit(VIDEO, { prompt: 'waves on a beach', ...input }), 120_000);
      expect(job.status).toBe('completed');
      const out = job.outputs[0];
      expect(out.type).toBe('video');
      const video = await download(out.url);
      expect(video.contentType).toBe('video/mp4');
      const p = await probe(video.path);
      expect(p.duration).toBeCloseTo(seconds, 0);
      expect(p.video).toEqual({ codec: 'h264', width, height, pixFmt: 'yuv420p' });
      expect(p.audio !== undefined).toBe(audio);
      if (audio) expect(p.audio?.codec).toBe('aac');
      for (const still of [out.thumbnail, out.posterImage]) {
        const img = await decodeImage((await download(still)).path);
        expect(img.width).toBeGreaterThan(0);
      }
      expect((await decodeImage((await download(out.posterImage)).path)).width).toBe(width);
    },
  );

  it('an input image on a cluster-internal address is not fetched: the job fails, refunded', async () => {
    for (const image of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:1/inside.png']) {
      const job = await finished(await submit(EDIT, { prompt: 'x', image }));
      expect(job).toMatchObject({ status: 'failed', error: { code: 'GENERATION_FAILED' } });
      expect(job.error.message).toMatch(/is not fetched: .* (never allowed|is not public)/);
    }
  });

  it('a worker that fails reports the error, and the charge is refunded', async () => {
    const before = await settledBalance();
    const job = await finished(
      await submit(EDIT, {
        prompt: 'x',
        image: `${s.url}/files/uploads/nobody/00000000-0000-0000-0000-000000000000`,
      }),
    );
    expect(job).toMatchObject({ status: 'failed', progress: 0, output: null, outputs: null });
    expect(job.error.code).toBe('GENERATION_FAILED');
    expect(job.error.message).toContain('00000000-0000-0000-0000-000000000000');
    await eventually(async () => (await balance()) === before, 5_000, 'the refund');
    expect(imbalance((await s.r.accounts.get(s.name('acme')))?.status)).toBe(0);
  });

  it('a deleted Pod is retried and the job still completes', async () => {
    const jobId = await submit(VIDEO, { prompt: 'slow one', duration: 8 });
    const first = `gj-${jobId}-1`;
    // The job is processing from its admission, before its Pod exists: wait for the Pod to run.
    await eventually(
      async () => {
        const pods = await s.kube.core.listNamespacedPod({
          namespace: s.kube.namespace,
          fieldSelector: `metadata.name=${first}`,
        });
        return pods.items[0]?.status?.phase === 'Running';
      },
      30_000,
      'the first Pod running',
    );
    await deletePod(s.kube, first, { gracePeriodSeconds: 0 });
    const job = await finished(jobId, 120_000);
    expect(job.status).toBe('completed');
    const cr = await s.r.jobs.get(jobId);
    expect(cr?.status?.attempts).toBe(2);
    expect(cr?.status?.conditions?.find((c) => c.type === 'Retrying')).toMatchObject({ status: 'False' });
  });

  // Restarting the controller is up to the test only where the test runs it.
  it.skipIf(REMOTE_URL)('the controller killed and restarted mid-run loses no job', async () => {
    const local = s.local!;
    const ids = await Promise.all([1, 2, 3].map((i) => submit(IMAGE, { prompt: `restart ${i}` })));
    await local.controller.stop();
    local.controller = await local.startController();
    const jobs = await Promise.all(ids.map((id) => finished(id)));
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('kubectl get gj shows the phases; kubectl describe tells the story in conditions, a failure in Events', async () => {
    const jobId = await submit(IMAGE, { prompt: 'for kubectl' });
    await finished(jobId);
    const env = { ...process.env, KUBECONFIG: kubeconfigPath() };
    const { stdout } = await run('kubectl', ['get', 'gj', jobId, '-n', s.kube.namespace], { env });
    expect(stdout).toMatch(new RegExp(`${jobId}\\s+completed\\s+acme\\s+${IMAGE}\\s+100\\s+134000`));
    const described = (await run('kubectl', ['describe', 'gj', jobId, '-n', s.kube.namespace], { env }))
      .stdout;
    // The steps are conditions: no Event write per step, nor for a success.
    for (const step of ['Admitted', 'Started', 'Finished'])
      expect(described).toMatch(new RegExp(`Type:\\s+${step}`));
    expect(described).toMatch(/Events:\s+<none>/);

    // An edit of an input that does not exist fails in the worker.
    const failing = await submit(EDIT, {
      prompt: 'for kubectl',
      image: `${s.url}/files/uploads/nobody/00000000-0000-0000-0000-000000000001`,
    });
    expect((await finished(failing)).status).toBe('failed');
    const story = await eventually(
      async () => {
        const out = (await run('kubectl', ['describe', 'gj', failing, '-n', s.kube.namespace], { env }))
          .stdout;
        return /Warning\s+Failed/.test(out) ? out : undefined;
      },
      10_000,
      'the failure in describe',
    );
    expect(story).toMatch(/GENERATION_FAILED/);
  });
});

describe('waiting for capacity', () => {
  it('a job of a paused model waits in pending, is cancellable, and its Pod never exists', async () => {
    await applyImageModel(s.kube, { name: 'paused', displayName: 'Paused', baseCredits: 5000, slots: 0 });
    await eventually(
      async () => (await s.call('/v1/catalog/models/genjobs/paused')).status === 200,
      5_000,
      'catalog',
    );
    const before = await settledBalance();
    const submittedAt = Date.now();
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: 'genjobs/paused/text-to-image', input: { prompt: 'wait' } },
    });
    // The submit answer must carry an estimate: the soonest it could end, were it to start now.
    const { jobId, estimatedCompletionTime } = await res.json();
    expect(Date.parse(estimatedCompletionTime)).toBeGreaterThanOrEqual(submittedAt + 4_000);
    await new Promise((r) => setTimeout(r, 1_500));
    // While paused, nobody can say when it starts: a position, no estimate.
    const waiting = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
    expect(waiting).toMatchObject({ status: 'pending', queuePosition: 0 });
    expect(waiting).not.toHaveProperty('estimatedCompletionTime');
    const cancel = await (await s.call(`/v1/jobs/${jobId}/cancel`, { method: 'POST', key })).json();
    expect(cancel).toEqual({ jobId, status: 'cancelled', refundedMicroCents: 5_000 });
    const pods = await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `genjobs.io/job=${jobId}`,
    });
    expect(pods.items).toHaveLength(0);
    expect(await balance()).toBe(before);
  });
});

describe('a job and its reservation, written at once by the api', () => {
  it('a job whose reservation is not there yet waits, with no status write and no Pod, and runs once it shows', async () => {
    const account = s.name('acme');
    const jobId = randomUUID();
    const cost = 134_000;
    await s.r.jobs.create({
      metadata: { name: jobId, labels: { 'genjobs.io/account': account } },
      spec: {
        account,
        model: IMAGE,
        version: 'v1.0',
        input: { prompt: 'reserved late', resolution: '1k', aspect_ratio: '1:1' },
        costMicroCents: cost,
      },
    });
    await new Promise((r) => setTimeout(r, 1_500));
    // Nothing written: what the CRD's default says of a job without a status.
    expect((await s.r.jobs.get(jobId))?.status).toEqual({ phase: 'pending' });
    const pods = await s.kube.core.listNamespacedPod({
      namespace: s.kube.namespace,
      labelSelector: `genjobs.io/job=${jobId}`,
    });
    expect(pods.items).toHaveLength(0);

    const spent = async () => (await s.r.accounts.get(account))?.status?.spentMicroCents ?? 0;
    const spentBefore = await spent();
    const reserved = await new Ledger({ accounts: s.r.accounts }).run(account, {
      kind: 'reserve',
      jobId,
      cost,
      maxConcurrent: 100,
    });
    expect(reserved.ok).toBe(true);
    expect((await finished(jobId)).status).toBe('completed');
    await eventually(async () => (await spent()) === spentBefore + cost, 10_000, 'the job charged');
  });
});

describe('plan concurrency', () => {
  it('a finished job frees its plan slot at once, though its settlement is written a moment later', async () => {
    const free = await s.account({ name: 'freeplan', plan: 'free' });
    const submitFree = () =>
      s.call('/v1/jobs/submit', {
        method: 'POST',
        key: free,
        json: { model: IMAGE, input: { prompt: 'slot' } },
      });
    const first = await Promise.all([submitFree(), submitFree()]);
    expect(first.map((r) => r.status)).toEqual([200, 200]);
    expect((await submitFree()).status).toBe(429);
    const ids = await Promise.all(first.map(async (r) => (await r.json()).jobId as string));
    for (const id of ids)
      await eventually(
        async () => (await (await s.call(`/v1/jobs/${id}`, { key: free })).json()).status === 'completed',
        60_000,
        `job ${id} completed`,
      );
    // Right away: the two reservations may still be held, their jobs are finished.
    const next = await Promise.all([submitFree(), submitFree()]);
    expect(next.map((r) => r.status)).toEqual([200, 200]);
  });
});
