/**
 * The `archive` scenario (issue 14): the job history in PostgreSQL. Archived rows are
 * bulk-inserted straight into a real PostgreSQL server (the shape the archiver writes),
 * then the api and the controller run over the same live jobs twice, with the archive
 * off and on, so their memory compares side by side; etcd must hold the live jobs only,
 * and reads of archived jobs (GET, a 50-job list page) are timed through the api.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeCursor } from '../../src/api/jobs/list.ts';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { labelValue } from '../../src/jobs/labels.ts';
import { jobRecord, RECORD_VERSION } from '../../src/jobs/record.ts';
import { API_VERSION, type GenerationJob } from '../../src/k8s/types.ts';
import { INSTANT_MODEL, PAUSED_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace, newBlobSecret } from '../harness/context.ts';
import { type CpuUse, cpuSnapshot, cpuUse } from '../harness/cpu.ts';
import { onCleanup } from '../harness/procs.ts';
import { closedLoop, type LoadResult, round } from '../harness/stats.ts';
import { wrkLoad } from '../harness/wrk.ts';
import { type ArchiveE2eResult, archiveE2e } from './archive-e2e.ts';

export interface ArchiveResult {
  archivedRows: number;
  liveJobs: number;
  /** Rows/s of the bulk load (one INSERT … SELECT) and of the archiver's own upserts (batches of 200). */
  bulkRowsPerSecond: number;
  upsertRowsPerSecond: number;
  /** The VACUUM (ANALYZE) after the bulk load, before anything is measured. */
  vacuumSeconds: number;
  /** Table and index bytes per archived job. */
  bytesPerJob: number;
  /** GenerationJobs in etcd once both runs are done: the live ones only. */
  etcdJobs: number;
  rss: { liveOnly: { api: number; controller: number }; withArchive: { api: number; controller: number } };
  apiRssRatio: number;
  controllerRssRatio: number;
  getArchived: LoadResult;
  /** GET of a live, cached job at the same concurrency: what this machine allows right now. */
  getLive: LoadResult;
  /** Archived GET p99 ÷ live GET p99. */
  getArchivedRatio: number;
  listPage: LoadResult;
  /** CPU per request of each read, by process (api, PostgreSQL, the bench client). */
  readCpu: { getLive: CpuUse; getArchived: CpuUse; listPage: CpuUse };
  /** End-to-end jobs/s with the archive off and on (archiving and deleting during the run). */
  e2e: ArchiveE2eResult;
}

const ACCOUNTS = 200;

export async function archiveScenario(ctx: BenchContext): Promise<ArchiveResult> {
  // Quick mode scales the history down: a million rows takes minutes on two shared cores.
  // BENCH_ARCHIVE_ROWS and BENCH_ARCHIVE_LIVE set either for experiments (a quick run with
  // the full run's live jobs shows what the api's cache of them costs the reads).
  const rows = Number(process.env.BENCH_ARCHIVE_ROWS ?? (ctx.quick ? 50_000 : 1_000_000));
  const live = Number(process.env.BENCH_ARCHIVE_LIVE ?? (ctx.quick ? 500 : 2_000));
  const pg = await LocalPostgres.start();
  const done = onCleanup('postgres', () => pg.stop());
  const archive = new Archive(postgresClient({ connectionString: pg.url }));
  const countSql = postgresClient({ connectionString: pg.url });
  try {
    await archive.ready();
    // One install to the archive (its claim): this namespace and every end-to-end run's.
    const install = newBlobSecret();
    const ns = await BenchNamespace.create(ctx, 'bench-archive', install);
    await ns.installBenchCatalog();
    const key = await ns.account('acct-0');
    // An account sees only the jobs made since it was (owns() in src/api/request.ts: a deleted
    // namesake's history is not its own), so the history is dated from acct-0's creation on.
    const since = Date.parse((await ns.r.accounts.get('acct-0'))?.metadata.creationTimestamp ?? '') + 1_000;

    ctx.progress(`archive: bulk-inserting ${rows} archived jobs`);
    // A bulk load takes minutes on a loaded machine: no query timeout here.
    const sql = postgresClient({ connectionString: pg.url, timeoutMs: 3_600_000 });
    const template = JSON.stringify(archivedJob('@ID@', 'acct-@ACCT@', '@CREATED@'));
    // Its record too, as the archiver stores it (the list pages serve that text).
    const recordTemplate = JSON.stringify(jobRecord(archivedJob('@ID@', 'acct-@ACCT@', '@CREATED@')));
    // Spread over 28 days from there, as a month of history is (the later part dated ahead
    // of the clock): none of it is due for the retention the controller applies meanwhile.
    const oldest = since;
    const step = Math.floor((28 * 86_400_000) / rows);
    let t = performance.now();
    const chunk = 100_000;
    for (let from = 1; from <= rows; from += chunk) {
      await sql.query(
        `INSERT INTO genjobs_jobs (id, account, model, status, created_at, finished_at, resource, record, record_version)
         SELECT id, 'acct-' || (i % ${ACCOUNTS}), $2, 'completed', created, created::timestamptz + interval '31 seconds',
                replace(replace(replace($1, '@ID@', id), '@ACCT@', (i % ${ACCOUNTS})::text), '@CREATED@', created)::json,
                replace(replace($7, '@ID@', id), '@CREATED@', created), $8
         FROM (SELECT i, md5(i::text)::uuid::text AS id,
                      to_char(($5::timestamptz + i * ($6::text || ' milliseconds')::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created
               FROM generate_series($3::int, $4::int) AS i) AS g`,
        [
          template,
          INSTANT_MODEL,
          from,
          Math.min(rows, from + chunk - 1),
          new Date(oldest).toISOString(),
          step,
          recordTemplate,
          RECORD_VERSION,
        ],
      );
      if (rows > chunk) ctx.progress(`archive: ${Math.min(rows, from + chunk - 1)} rows`);
    }
    const bulkRowsPerSecond = rows / ((performance.now() - t) / 1000);
    // A history that grew over weeks has long been vacuumed; one loaded in a minute has not.
    // Left to autovacuum, the table's first VACUUM (about a minute of a core for a million
    // rows, started ~15 s after the load) would run through the reads measured below, and
    // those reads would set each row's hint bits for the first time. Vacuum it now, as it
    // would stand in service.
    t = performance.now();
    await sql.query('VACUUM (ANALYZE) genjobs_jobs');
    const vacuumSeconds = (performance.now() - t) / 1000;
    const [size] = await sql.query<{ bytes: string }>(
      "SELECT pg_total_relation_size('genjobs_jobs') AS bytes",
    );
    await sql.close();

    ctx.progress('archive: the archiver path (upserts in batches of 200)');
    const upserts = ctx.quick ? 4_000 : 20_000;
    const recent = new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z');
    t = performance.now();
    for (let i = 0; i < upserts; i += 200) {
      await archive.upsertJobs(
        Array.from({ length: 200 }, (_, k) =>
          archivedJob(randomUUID(), `acct-${(i + k) % ACCOUNTS}`, recent),
        ),
      );
    }
    const upsertRowsPerSecond = upserts / ((performance.now() - t) / 1000);

    ctx.progress(`archive: ${live} live jobs`);
    const r = ns.r;
    await closedLoop(64, live, async (i) => {
      const account = `acct-${i % ACCOUNTS}`;
      // Live: waiting on the paused variant, never finished, never archived.
      await r.jobs.create({
        metadata: {
          name: randomUUID(),
          labels: { 'genjobs.io/account': account, 'genjobs.io/model': labelValue(PAUSED_MODEL) },
        },
        spec: {
          account,
          model: PAUSED_MODEL,
          version: 'v1.0',
          input: { prompt: `a lighthouse, take ${i}` },
          costMicroCents: 134000,
        },
      });
    });

    const measure = async (env: NodeJS.ProcessEnv) => {
      const controller = await ns.startController(env);
      const { proc: api, client } = await ns.startApi(env);
      try {
        await new Promise((res) => setTimeout(res, 3_000));
        const [c, a] = [await controller.memory(), await api.memory()];
        let stopped: Promise<void> | undefined;
        return {
          pid: api.pid,
          api: a.vmRss,
          controller: c.vmRss,
          client,
          stop: () => {
            stopped ??= (async () => {
              client.close();
              await api.stop();
              await controller.stop();
            })();
            return stopped;
          },
        };
      } catch (err) {
        client.close();
        await api.stop();
        await controller.stop();
        throw err;
      }
    };
    ctx.progress('archive: api and controller, archive off');
    const off = await measure({ GENJOBS_ARCHIVE: 'off' });
    await off.stop();
    ctx.progress('archive: api and controller, archive on');
    const on = await measure({ GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: pg.url });
    try {
      const archived = await archive.listJobs({ account: 'acct-0', limit: 2_000 });
      const seconds = Number(process.env.BENCH_ARCHIVE_READ_SECONDS ?? (ctx.quick ? 1 : 5));
      const pids = { api: on.pid, postgres: pg.pid, bench: process.pid };
      const phases: Record<string, [number, number]> = {};
      // Each read goes through wrk (harness/wrk.ts): the bench's own Node loop took a third of
      // the CPU of a GET on the two cores the api and PostgreSQL are measured on, and its
      // event loop's queue landed in the latencies it reported. Each read is warmed up first
      // for as long as it is timed (JIT, the heaps' growth, the pool's connections), then
      // timed with the CPU every process spent on it; wrk is this process's child, its CPU
      // is the bench's. A short warm-up left the first timed GETs in its tail: p99 10.8 ms
      // against 4.3 ms for the same GETs after 10,000 (2,000 live jobs, c=16).
      const timed = async (name: string, paths: string[]) => {
        const load = { url: on.client.baseUrl, paths, headers: { authorization: `Bearer ${key}` } };
        await wrkLoad({ ...load, concurrency: 16, seconds });
        const before = await cpuSnapshot(pids, ['postgres']);
        const from = monotonicMicros();
        const result = await wrkLoad({ ...load, concurrency: 16, seconds });
        phases[name] = [from, monotonicMicros()];
        const cpu = cpuUse(before, await cpuSnapshot(pids, ['postgres']), result.count);
        return { load: result, cpu };
      };
      // GET of a live (cached) job first: the baseline this machine allows right now.
      const liveIds = (await r.jobs.list()).items
        .filter((j) => j.spec.account === 'acct-0')
        .map((j) => j.metadata.name);
      const getLive = await timed(
        'getLive',
        liveIds.map((id) => `/v1/jobs/${id}`),
      );
      const get = await timed(
        'getArchived',
        archived.map((j) => `/v1/jobs/${j.metadata.name}`),
      );
      // Pages deep in the history (up to 1,000 rows in), each a full page of 50 (wrk checks
      // every answer's status; one page is read whole here).
      const pages = archived
        .slice(0, Math.min(1_000, archived.length - 50))
        .map(
          (j) =>
            `/v1/jobs?limit=50&cursor=${encodeCursor([String(j.metadata.creationTimestamp ?? ''), j.metadata.name ?? ''])}`,
        );
      const sample = await on.client.ok<{ jobs: unknown[] }>('GET', pages.at(-1) ?? '', { key });
      if (sample.jobs.length !== 50) throw new Error(`list: a page of ${sample.jobs.length} jobs, not 50`);
      const list = await timed('listPage', pages);
      if (process.env.BENCH_PROFILE) {
        // The profile's clock is CLOCK_MONOTONIC in µs too: each read's slice can be cut out of it.
        await writeFile(join(ctx.dir, 'logs', 'archive-read-phases.json'), JSON.stringify(phases));
      }
      const etcdJobs = (await r.jobs.list()).items.length;
      const { jobs: archivedRows } = await archive.count();
      // The reads' processes go before the end-to-end runs start their own.
      await on.stop();
      const e2e = await archiveE2e(ctx, {
        url: pg.url,
        pid: pg.pid,
        install,
        rowsOf: async (accounts) =>
          (
            await countSql.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM genjobs_jobs WHERE account = ANY($1::text[])',
              [accounts],
            )
          )[0]?.n ?? 0,
      });
      return {
        archivedRows,
        liveJobs: live,
        bulkRowsPerSecond: round(bulkRowsPerSecond, 0),
        vacuumSeconds: round(vacuumSeconds, 1),
        upsertRowsPerSecond: round(upsertRowsPerSecond, 0),
        bytesPerJob: round(Number(size?.bytes ?? 0) / rows, 0),
        etcdJobs,
        rss: {
          liveOnly: { api: off.api, controller: off.controller },
          withArchive: { api: on.api, controller: on.controller },
        },
        apiRssRatio: round(on.api / off.api, 3),
        controllerRssRatio: round(on.controller / off.controller, 3),
        getArchived: get.load,
        getLive: getLive.load,
        getArchivedRatio: round(get.load.p99Ms / getLive.load.p99Ms, 2),
        listPage: list.load,
        readCpu: { getLive: getLive.cpu, getArchived: get.cpu, listPage: list.cpu },
        e2e,
      };
    } finally {
      await on.stop();
    }
  } finally {
    await archive.close();
    await countSql.close();
    await pg.stop();
    done();
  }
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** An archived job as the archiver stores it: a finished resource without managedFields. */
function archivedJob(id: string, account: string, created: string): GenerationJob {
  return {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    metadata: {
      name: id,
      namespace: 'bench-archive',
      uid: id,
      resourceVersion: '1',
      creationTimestamp: created,
      labels: { 'genjobs.io/account': account, 'genjobs.io/model': labelValue(INSTANT_MODEL) },
    },
    spec: {
      account,
      model: INSTANT_MODEL,
      version: 'v1.0',
      input: { prompt: 'a lighthouse at dusk', resolution: '1k', aspect_ratio: '1:1' },
      costMicroCents: 134000,
      requestId: id,
    },
    status: {
      phase: 'completed',
      progress: 100,
      startedAt: created,
      completedAt: created,
      attempts: 1,
      outputs: [{ url: `http://127.0.0.1:8080/files/jobs/${id}/output-0.png`, type: 'image' }],
      conditions: [
        {
          type: 'Finished',
          status: 'True',
          reason: 'Completed',
          message: 'the job produced its outputs',
          lastTransitionTime: created,
          observedGeneration: 1,
        },
      ],
    },
  };
}
