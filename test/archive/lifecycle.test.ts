import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstKeyedJobId, nextKeyedJobId } from '../../src/api/jobs/service.ts';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { uploadKey } from '../../src/blob/keys.ts';
import type { RunningController } from '../../src/controller/main.ts';
import type { Account } from '../../src/k8s/types.ts';
import type { Logger } from '../../src/log.ts';
import { eventually } from '../support/cluster.ts';
import { memoryLogger } from '../support/service.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { finishedJob } from './fixtures.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';

let pg: LocalPostgres;
let s: TestStack;
let archive: Archive;
let key: string;

const env = () => ({ GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: pg.url });

beforeAll(async () => {
  pg = await LocalPostgres.start();
  // keepFinished long for the first controller: each test chooses when jobs leave etcd.
  s = await startTestStack('archive-life', { env: { ...env(), GENJOBS_KEEP_FINISHED: '1h' } });
  archive = new Archive(postgresClient({ connectionString: pg.url }));
  key = await s.account({ name: 'acme', plan: 'enterprise' });
});
afterAll(async () => {
  await s?.stop();
  await archive?.close();
  await pg?.stop();
});

async function submit(idempotencyKey?: string) {
  const res = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: IMAGE, input: { prompt: 'a lighthouse at dusk' } },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
  expect(res.status).toBe(200);
  return res;
}

const finished = (jobId: string) =>
  eventually(
    async () => {
      const res = await s.call(`/v1/jobs/${jobId}`, { key });
      const text = await res.text();
      return ['completed', 'failed'].includes(JSON.parse(text).status) ? text : undefined;
    },
    90_000,
    `job ${jobId} to finish`,
  );

/** Replaces the running controller by one with other settings (the first is killed, as by a crash). */
async function restartController(extra: NodeJS.ProcessEnv, logger?: Logger): Promise<RunningController> {
  await s.controller.stop();
  s.controller = await s.startController({ ...env(), ...extra }, logger);
  return s.controller;
}

const controllerMetrics = async () => (await fetch(`${s.controller.url}/metrics`)).text();

describe('a finished job moves from etcd to the archive', () => {
  it('the job list pages across live and archived jobs with no job twice or skipped while jobs move', async () => {
    const other = await s.account({ name: 'lister', plan: 'enterprise' });
    const names = Array.from({ length: 12 }, (_, i) => `lst-${String(i).padStart(2, '0')}`);
    for (const [i, name] of names.entries()) {
      const created = await s.r.jobs.create({
        metadata: { name, labels: { 'genjobs.io/account': 'lister' } },
        spec: { account: 'lister', model: IMAGE, version: 'v1.0', input: { prompt: 'x' }, costMicroCents: 0 },
      } as never);
      await s.r.jobs.updateStatus({
        ...created,
        status: {
          phase: i % 4 === 0 ? 'failed' : 'completed',
          progress: 0,
          completedAt: new Date().toISOString(),
          ...(i % 4 === 0 ? { error: { code: 'GENERATION_FAILED', message: 'no' } } : {}),
        },
      });
    }
    // The archiver (keepFinished 1 h) upserts them all and keeps the resources.
    await eventually(async () => (await archive.count()).jobs >= names.length, 30_000, 'the upserts');
    const expected = (await (await s.call('/v1/jobs?limit=50', { key: other })).json()).jobs.map(
      (j: { jobId: string }) => j.jobId,
    );
    expect([...expected].sort()).toEqual(names);

    const move = async (ids: string[]) => {
      for (const id of ids) await s.r.jobs.delete(id);
      await new Promise((r) => setTimeout(r, 300));
    };
    const seen: string[] = [];
    const page = async (cursor?: string) => {
      const q = cursor ? `&cursor=${cursor}` : '';
      const body = await (await s.call(`/v1/jobs?limit=5${q}`, { key: other })).json();
      seen.push(...body.jobs.map((j: { jobId: string }) => j.jobId));
      return body.nextCursor as string | null;
    };
    let cursor = await page();
    // Jobs on the page just shown, on the next page and further on leave etcd between fetches.
    await move([expected[0], expected[5], expected[6], expected[11]]);
    cursor = await page(cursor!);
    await move([expected[4], expected[9], expected[10]]);
    cursor = await page(cursor!);
    expect(cursor).toBeNull();
    expect(seen).toEqual(expected);

    const failed = await (await s.call('/v1/jobs?limit=50&status=failed', { key: other })).json();
    expect(failed.jobs.map((j: { jobId: string }) => j.jobId).sort()).toEqual(['lst-00', 'lst-04', 'lst-08']);
    const none = await (await s.call('/v1/jobs?limit=50&model=genjobs/other/x', { key: other })).json();
    expect(none.jobs).toEqual([]);
  });

  it('a list filter that is not a slug (a NUL byte) is a 400, never a query the archive refuses', async () => {
    const res = await s.call('/v1/jobs?model=%00%3F', { key });
    expect([res.status, (await res.json()).code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('an archived job deleted by hand (not by the archiver) keeps its files: the controller asks the archive', async () => {
    const { jobId } = await (await submit()).json();
    const output = JSON.parse(await finished(jobId)).output as string;
    await eventually(() => archive.getJob(jobId), 20_000, 'the upsert');
    await s.r.jobs.delete(jobId);
    // The controller sees it go and keeps its files, since the archive holds its record (the
    // same delete with none takes them: e2e/jobs.test.ts).
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await fetch(output)).status).toBe(200);
    expect((await s.call(`/v1/jobs/${jobId}`, { key })).status).toBe(200);
  });

  it('is archived before its resource goes, reads back byte for byte, and its Idempotency-Key still replays', async () => {
    const res = await submit('lighthouse-1');
    const { jobId } = await res.json();
    const live = await finished(jobId);
    // Archived (the upsert) while the resource is kept for keepFinished.
    await eventually(() => archive.getJob(jobId), 20_000, 'the upsert');
    expect(await s.r.jobs.get(jobId)).toBeDefined();

    // A controller killed after the upsert, before the delete: the next one deletes, and says so.
    const logs = memoryLogger();
    await restartController({ GENJOBS_KEEP_FINISHED: '1s' }, logs.log);
    await eventually(async () => (await s.r.jobs.get(jobId)) === undefined, 20_000, 'the delete');
    await eventually(
      async () =>
        logs.lines.some((l) => {
          const line = JSON.parse(l);
          return line.msg === 'job archived and deleted from the cluster' && line.jobId === jobId;
        }),
      5_000,
      'the log line of the delete',
    );
    await new Promise((r) => setTimeout(r, 300)); // the api's cache sees the delete

    const archived = await s.call(`/v1/jobs/${jobId}`, { key });
    expect(archived.status).toBe(200);
    expect(await archived.text()).toBe(live);
    // Its files stay with its record (a job deleted without one takes them: e2e/jobs.test.ts),
    // after the controller has seen the resource go.
    await new Promise((r) => setTimeout(r, 1_500));
    const output = JSON.parse(live).output as string;
    expect(output).toMatch(/^http/);
    expect((await fetch(output)).status).toBe(200);
    const rows = await archive.listJobs({ account: 'acme', limit: 10 });
    expect(rows.filter((j) => j.metadata.name === jobId)).toHaveLength(1);

    // The list page serves the record the archive stored: the same bytes as the live one.
    const listText = await (await s.call('/v1/jobs?limit=50', { key })).text();
    expect(JSON.parse(listText).jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    expect(listText).toContain(live);

    const replay = await submit('lighthouse-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).jobId).toBe(jobId);
    // Never a second job: no resource of that name came back.
    expect(await s.r.jobs.get(jobId)).toBeUndefined();
  });

  it('an Idempotency-Key past its window makes one new job, which its retries then replay', async () => {
    // The key's first job, submitted two days ago and archived since.
    const first = firstKeyedJobId((await s.r.accounts.get('acme'))!, 'order-2231');
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000).toISOString();
    await archive.upsertJobs([
      finishedJob(first, { account: 'acme', model: IMAGE, createdAt: twoDaysAgo, completedAt: twoDaysAgo }),
    ]);
    const fresh = await submit('order-2231');
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    const { jobId } = await fresh.json();
    expect(jobId).toBe(nextKeyedJobId(first));
    for (let retry = 0; retry < 2; retry++) {
      const again = await submit('order-2231');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await again.json()).jobId).toBe(jobId);
    }
  });

  it("a deleted account's archived jobs stay its own: a new account of its name sees none of them", async () => {
    // Archived while the first umbrella existed: made a minute before the second one was.
    const deleted = { metadata: { name: 'umbrella', uid: 'uid-of-the-deleted-umbrella' } } as Account;
    const first = firstKeyedJobId(deleted, 'order-1');
    const minuteAgo = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await archive.upsertJobs([
      finishedJob(first, { account: 'umbrella', model: IMAGE, createdAt: minuteAgo, completedAt: minuteAgo }),
    ]);
    const newKey = await s.account({ name: 'umbrella', plan: 'enterprise' });
    const get = await s.call(`/v1/jobs/${first}`, { key: newKey });
    expect([get.status, (await get.json()).code]).toEqual([403, 'UNAUTHORIZED_ACCESS']);
    expect((await (await s.call('/v1/jobs', { key: newKey })).json()).jobs).toEqual([]);
    // The same Idempotency-Key is a new job of the new account, not a replay of the old one's.
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key: newKey,
      json: { model: IMAGE, input: { prompt: 'ours' } },
      headers: { 'idempotency-key': 'order-1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const { jobId } = await res.json();
    // Key chains start from the account's uid: the new account's is its own.
    expect(jobId).toBe(firstKeyedJobId((await s.r.accounts.get('umbrella'))!, 'order-1'));
    expect(jobId).not.toBe(first);
    const listed = (await (await s.call('/v1/jobs', { key: newKey })).json()).jobs;
    expect(listed.map((j: { jobId: string }) => j.jobId)).toEqual([jobId]);
  });

  it("an expired upload's record is archived, then its resource deleted", async () => {
    const expiresAt = new Date(Date.now() - 3_600_000).toISOString();
    const id = randomUUID();
    await s.r.uploads.create({
      metadata: { name: id },
      spec: {
        account: 'acme',
        filename: 'in.png',
        contentType: 'image/png',
        maxSize: 1_000,
        objectKey: uploadKey('acme', id),
        expiresAt,
      },
    } as never);
    // The upload reconciler expires it, the archiver archives it and (keepFinished past) deletes it.
    await eventually(async () => (await s.r.uploads.get(id)) === undefined, 30_000, 'the delete');
    expect(await archive.getUpload(id)).toMatchObject({
      spec: { account: 'acme', expiresAt },
      status: { phase: 'expired' },
    });
  });

  it('with PostgreSQL down, jobs still run and finish, the resources stay, and archiving catches up', async () => {
    const before = memoryLogger();
    await restartController({ GENJOBS_KEEP_FINISHED: '1s' }, before.log);
    await pg.pause();
    try {
      const { jobId } = await (await submit()).json();
      const live = await finished(jobId);
      // A live job answers; a lookup that needs the archive is a retryable 503.
      expect((await s.call(`/v1/jobs/${jobId}`, { key })).status).toBe(200);
      const missing = await fetch(`${s.api.url}/v1/jobs/00000000-0000-0000-0000-000000000000`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(missing.status).toBe(503);
      expect(await missing.json()).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      const list = await fetch(`${s.api.url}/v1/jobs`, { headers: { authorization: `Bearer ${key}` } });
      expect(list.status).toBe(503);
      // The archiver tries once the ledger is done with the job (its credit lease closed) and
      // fails; keepFinished (1 s) passes, but an unarchived job is never deleted.
      await eventually(
        async () =>
          /genjobs_archive_errors_total\{op="upsert"\} [1-9]/.test(
            await (await fetch(`${s.controller.url}/metrics`)).text(),
          ),
        20_000,
        'a failed upsert',
      );
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await s.r.jobs.get(jobId)).toBeDefined();

      // Another job ends meanwhile: its look waits for its Pod and its settlement without
      // reaching the archive, and must not read as the archive being back.
      const second = (await (await submit()).json()).jobId;
      await finished(second);
      await eventually(
        async () => (await s.r.jobs.get(second))?.status?.phase === 'completed',
        10_000,
        'the end',
      );
      await new Promise((r) => setTimeout(r, 1_000));
      const said = (lines: string[], msg: string) => lines.filter((l) => JSON.parse(l).msg === msg).length;
      expect(said(before.lines, 'archive unavailable; finished jobs stay resources until it returns')).toBe(
        1,
      );
      expect(said(before.lines, 'archive available again')).toBe(0);

      // A new leader (a restart here) still knows how long the first job has waited: the lag
      // counts from its end, which its resource records, not from the new process's start.
      const after = memoryLogger();
      await restartController({ GENJOBS_KEEP_FINISHED: '1s' }, after.log);
      const ended = Date.parse((await s.r.jobs.get(jobId))?.status?.completedAt ?? '');
      const lag = await eventually(
        async () =>
          Number(/^genjobs_archive_lag_seconds (\S+)/m.exec(await controllerMetrics())?.[1]) || undefined,
        20_000,
        'a lag after the restart',
      );
      expect(lag).toBeGreaterThanOrEqual((Date.now() - ended) / 1000 - 2);

      await pg.resume();
      await eventually(async () => (await s.r.jobs.get(jobId)) === undefined, 30_000, 'the catch-up');
      await eventually(async () => (await s.r.jobs.get(second)) === undefined, 30_000, 'the catch-up');
      await new Promise((r) => setTimeout(r, 300));
      expect(await (await s.call(`/v1/jobs/${jobId}`, { key })).text()).toBe(live);
      expect(said(after.lines, 'archive available again')).toBe(1);
      // Every job here is archived once its lease closes: no lag is left.
      await eventually(
        async () => /^genjobs_archive_lag_seconds 0$/m.test(await controllerMetrics()),
        30_000,
        'no lag',
      );
    } finally {
      await pg.resume().catch(() => {});
    }
  });
});

describe('a cluster restored from a backup older than the job history', () => {
  it('a job the history holds as ended takes that end, settled once, instead of running again; one of another uid runs', async () => {
    const restoredKey = await s.account({
      name: 'restored',
      plan: 'enterprise',
      grantMicroCents: 10_000_000,
    });
    const submitAs = async () => {
      const res = await s.call('/v1/jobs/submit', {
        method: 'POST',
        key: restoredKey,
        json: { model: IMAGE, input: { prompt: 'a lighthouse at dusk' } },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { jobId: string }).jobId;
    };
    // The jobs as the backup holds them: made, paid for, not started (no controller runs).
    await s.controller.stop();
    const ids = [await submitAs(), await submitAs(), await submitAs()];
    const [cancelled, completed, reused] = await Promise.all(
      ids.map(async (id) => (await s.r.jobs.get(id))!),
    );
    const cost = cancelled!.spec.costMicroCents;
    const ended = new Date().toISOString();
    // The history, newer than the backup: the first was cancelled (refunded) and the second
    // completed; the third's name is held by another job (another uid) that failed.
    await archive.upsertJobs([
      {
        ...cancelled!,
        status: { phase: 'cancelled', progress: 0, refundedMicroCents: cost, completedAt: ended },
      },
      {
        ...completed!,
        status: {
          phase: 'completed',
          progress: 100,
          // In the order the apiserver hands fields out, as the archiver wrote them.
          outputs: [
            { type: 'image', url: `${s.config.GENJOBS_PUBLIC_URL}/files/jobs/${ids[1]}/output-0.png` },
          ],
          startedAt: ended,
          completedAt: ended,
        },
      },
      {
        ...reused!,
        metadata: { ...reused!.metadata, uid: randomUUID() },
        status: {
          phase: 'failed',
          progress: 0,
          error: { code: 'GENERATION_FAILED', message: 'x' },
          completedAt: ended,
        },
      },
    ]);
    const archivedRecord = async (id: string) => (await archive.getRecord(id))?.record;
    const historyBefore = await Promise.all(ids.slice(0, 2).map(archivedRecord));

    s.controller = await s.startController(env());
    const phase = async (id: string) => (await s.r.jobs.get(id))?.status?.phase;
    await eventually(async () => (await phase(ids[0]!)) === 'cancelled', 20_000, 'the cancelled end taken');
    await eventually(async () => (await phase(ids[1]!)) === 'completed', 20_000, 'the completed end taken');
    await eventually(async () => (await phase(ids[2]!)) === 'completed', 90_000, 'the third job run');
    expect((await s.r.jobs.get(ids[1]!))?.status?.outputs).toEqual([
      { url: `${s.config.GENJOBS_PUBLIC_URL}/files/jobs/${ids[1]}/output-0.png`, type: 'image' },
    ]);
    // The two that ended never got a Pod; the third ran.
    const pods = await s.kube.core.listNamespacedPod({ namespace: s.kube.namespace });
    const ran = new Set(pods.items.map((p) => p.metadata?.labels?.['genjobs.io/job']));
    expect([ran.has(ids[0]), ran.has(ids[1]), ran.has(ids[2])]).toEqual([false, false, true]);
    // Money: the cancelled job refunded, the two completed charged, once each, once the credit leases closed.
    const account = async () =>
      (await (await s.call('/v1/account', { key: restoredKey })).json()) as {
        balanceMicroCents: number;
        heldMicroCents: number;
        spentMicroCents: number;
      };
    const settled = await eventually(
      async () => {
        const a = await account();
        return a.heldMicroCents === 0 && a.spentMicroCents === 2 * cost ? a : undefined;
      },
      30_000,
      'the ledger settled',
    );
    expect(settled.balanceMicroCents).toBe(10_000_000 - 2 * cost);
    // The history kept what it said of the two that had ended.
    await new Promise((r) => setTimeout(r, 500));
    expect(await Promise.all(ids.slice(0, 2).map(archivedRecord))).toEqual(historyBefore);
  });
});
