/**
 * Part of the `archive` scenario (issue 14): "archiving never becomes the bottleneck".
 * Scenario 4's services (api, controller, dev node agent, an instant worker) with 128 jobs
 * in flight over 8 accounts, in three modes, in turn, so drift on a shared machine falls
 * on every mode:
 *
 * - `off`: no archive, jobs kept (the 7-day GENJOBS_JOB_TTL): what a run shorter than the
 *   TTL sees with the archive off, no job deleted;
 * - `ttl`: no archive, GENJOBS_JOB_TTL=1s: jobs deleted as soon as the controller lets them
 *   go, which is what `off` does too at steady state, once its first jobs reach the TTL;
 * - `on`: archived, and deleted GENJOBS_KEEP_FINISHED after their end.
 *
 * `on` and `ttl` make the same delete per job at the same time, so on ÷ ttl is the cost of
 * archiving itself (the issue's measure); on ÷ off adds the delete, one apiserver write of
 * about ten per job, that `off` only makes after its TTL (reported beside it). One thing
 * `ttl` pays now that `on` pays at `jobs.retention`: removing each job's output files.
 *
 * Jobs are deleted about 30 s after their end in both: the job reconciler keeps a finished
 * job that names a credit lease its cache does not show for 30 s after the job ended (the
 * cache may lag the lease's write; a closed lease looks the same), and the archive's
 * keepFinished is set to the same 30 s. So each run submits for a warm-up of 35 s, until
 * the deletes flow, and then for the measured seconds; jobs/s and CPU per job are those of
 * the measured window only, when submits, runs and deletes all go on at once (a window from
 * the first submit, as this scenario once used, held deletes for only some of its jobs:
 * those that ended early enough). Quick mode (CI) checks that archiving keeps up and
 * measures nothing finer: off and on once, a 5 s keepFinished, no warm-up.
 */
import { join } from 'node:path';
import { crInformer } from '../../src/k8s/cr-informer.ts';
import type { GenerationJob } from '../../src/k8s/types.ts';
import { silentLogger } from '../../src/log.ts';
import { profileApiserver, wantsApiserverProfile } from '../harness/apiserver-profile.ts';
import { INSTANT_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace, INSTANT_WORKER_COMMAND } from '../harness/context.ts';
import { basePids, type CpuUse, cpuSnapshot, cpuUse } from '../harness/cpu.ts';
import { genjobsSettled, quiesce } from '../harness/quiet.ts';
import { closedLoop, ratio, round, sleep } from '../harness/stats.ts';
import { StageTracker } from '../harness/tracker.ts';
import { perItem, readsBetween, writesBetween } from '../harness/writes.ts';
import { waitForModel } from './api.ts';
import { E2E_SLOTS, jobStage, submitInstantJob } from './e2e.ts';

export type ArchiveE2eMode = 'off' | 'ttl' | 'on';

/** GENJOBS_JOB_TTL of `ttl`: the shortest; the controller's 30 s for an unseen lease holds each job longer. */
const TTL_MODE_JOB_TTL = '1s';

/** What a mode runs, as the report names it: from the settings {@link run} gives its services. */
export function describeMode(mode: ArchiveE2eMode, keepFinishedS: number): string {
  switch (mode) {
    case 'off':
      return 'off (jobs kept, 7-day TTL)';
    case 'ttl':
      return `ttl (no archive, GENJOBS_JOB_TTL=${TTL_MODE_JOB_TTL}: deleted as soon as the controller lets them go)`;
    case 'on':
      return `on (archived, deleted GENJOBS_KEEP_FINISHED=${keepFinishedS}s after their end)`;
  }
}

export interface ArchiveE2eRun {
  archive: ArchiveE2eMode;
  /** Jobs submitted over the whole run (warm-up, window, and none after). */
  jobs: number;
  /** Jobs completed within the measured window. */
  completed: number;
  /** The measured window: from the end of the warm-up until the last submit. */
  seconds: number;
  jobsPerSecond: number;
  /**
   * Jobs deleted from etcd within the window ÷ jobs completed within it: about 1 for `ttl`
   * and `on` (the window holds the steady state), 0 for `off`.
   */
  deletesPerJob: number;
  /** On: rows archived within the window ÷ jobs completed within it (about 1, as for deletes). */
  archivedPerJob?: number;
  /** On: rows archived within the window ÷ its seconds. */
  archivedPerSecond?: number;
  /** Ttl, on: seconds after the last completion until every job was deleted (on: and archived). */
  drainSeconds?: number;
  /** CPU within the window ÷ jobs completed within it. */
  cpu: CpuUse;
  /**
   * Apiserver requests per completed job, from the first submit until the run's Pods were
   * gone and its credit leases closed and (ttl, on) every job was deleted: the whole life
   * of every job of the run. Writes by resource and verb, writes refused with 409, and
   * reads (with the bench's own watch and its polls for the deletes).
   */
  writesPerJob: { total: number; byResource: Record<string, number> };
  conflictsPerJob: number;
  readsPerJob: { total: number; byResource: Record<string, number> };
}

export interface ArchiveE2eResult {
  keepFinishedSeconds: number;
  warmUpSeconds: number;
  runs: ArchiveE2eRun[];
  /**
   * Jobs completed ÷ seconds of each mode: the median of its runs. Now and then a run meets
   * a spell in which kube-apiserver spends twice its usual CPU per request (its cause is not
   * genjobs', the writes and reads per job were those of the other runs); a median leaves
   * it out. Every run is in `runs` and the table.
   */
  jobsPerSecond: Partial<Record<ArchiveE2eMode, number>>;
  /** On ÷ ttl: the same deletes on both sides, so what archiving itself costs (issue 14: ≥ 0.95). */
  ratio: number;
  /** On ÷ off: with the delete, which `off` makes only after its 7-day TTL. */
  ratioKept: number;
  /** Rows the archiver wrote per second during the runs with it on (the median of theirs). */
  archiveRowsPerSecond: number;
  /**
   * CPU ms per job of every process measured, the median of each mode's runs. The jobs/s of
   * one run drift by a quarter with what else the shared cores run; CPU per job hardly
   * does, and where the cores are the bound, its ratio is the jobs/s ratio without drift.
   */
  cpuMsPerJob: Partial<Record<ArchiveE2eMode, number>>;
}

/** The archive database of the scenario, and the install (blob secret) that holds its claim. */
interface ArchiveUnderTest {
  url: string;
  pid: number | undefined;
  install: string;
  rowsOf(accounts: string[]): Promise<number>;
}

/**
 * Jobs submitted and not yet completed at any time: twice the node agent's slots, so every
 * slot has a job waiting for it while the controller starts the next.
 */
const IN_FLIGHT = 2 * E2E_SLOTS;

interface RunPlan {
  keepFinishedS: number;
  warmUpS: number;
  measureS: number;
  budgetMs: number;
}

export async function archiveE2e(ctx: BenchContext, archive: ArchiveUnderTest): Promise<ArchiveE2eResult> {
  const plan: RunPlan = ctx.quick
    ? { keepFinishedS: 5, warmUpS: 0, measureS: 5, budgetMs: 60_000 }
    : {
        // The job reconciler's 30 s for a lease its cache does not show (see above).
        keepFinishedS: 30,
        warmUpS: 35,
        measureS: Number(process.env.BENCH_ARCHIVE_E2E_SECONDS ?? 30),
        budgetMs: 240_000,
      };
  // Three rounds of the three modes, each round starting one mode later, so every mode is
  // run first, second and third once (a machine that drifts within a round, as they often
  // get slower while etcd grows, weighs on each mode alike).
  const modes: ArchiveE2eMode[] = ['off', 'ttl', 'on'];
  const order: ArchiveE2eMode[] = ctx.quick
    ? ['off', 'on']
    : modes.flatMap((_, turn) => [...modes.slice(turn), ...modes.slice(0, turn)]);
  const runs: ArchiveE2eRun[] = [];
  for (const [i, mode] of order.entries()) {
    ctx.progress(
      `archive: end to end, archive ${mode} (${i + 1} of ${order.length}), ${plan.warmUpS} s warm-up and ${plan.measureS} s measured`,
    );
    runs.push(await run(ctx, `bench-archive-e2e-${i + 1}`, mode, plan, archive));
  }
  const median = (mode: ArchiveE2eMode, of: (r: ArchiveE2eRun) => number) => {
    const values = runs
      .filter((r) => r.archive === mode)
      .map(of)
      .sort((a, b) => a - b);
    if (values.length === 0) return Number.NaN;
    const mid = values.length >> 1;
    return values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  };
  const perSecond = (mode: ArchiveE2eMode) => median(mode, (r) => r.jobsPerSecond);
  const cpu = (mode: ArchiveE2eMode) =>
    round(
      median(mode, (r) => r.cpu.totalMsPerItem),
      1,
    );
  const present = modes.filter((m) => runs.some((r) => r.archive === m));
  return {
    keepFinishedSeconds: plan.keepFinishedS,
    warmUpSeconds: plan.warmUpS,
    runs,
    jobsPerSecond: Object.fromEntries(present.map((m) => [m, round(perSecond(m), 2)])),
    ratio: ratio(perSecond('on'), perSecond('ttl')),
    ratioKept: ratio(perSecond('on'), perSecond('off')),
    cpuMsPerJob: Object.fromEntries(present.map((m) => [m, cpu(m)])),
    archiveRowsPerSecond: round(
      median('on', (r) => r.archivedPerSecond ?? Number.NaN),
      2,
    ),
  };
}

async function run(
  ctx: BenchContext,
  name: string,
  mode: ArchiveE2eMode,
  plan: RunPlan,
  archive: ArchiveUnderTest,
): Promise<ArchiveE2eRun> {
  const ns = await BenchNamespace.create(ctx, name, archive.install);
  await ns.installBenchCatalog();
  // Account names of this run only: its rows are counted among the scenario's million.
  const accounts = Array.from({ length: 8 }, (_, i) => `${name}-${i}`);
  const keys = await Promise.all(accounts.map((a) => ns.account(a)));
  const env: NodeJS.ProcessEnv = {
    // Archived and deleted (on), deleted (ttl) and worker Pods deleted (every mode) alike.
    GENJOBS_KEEP_FINISHED: `${plan.keepFinishedS}s`,
    ...(mode === 'on'
      ? { GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: archive.url }
      : mode === 'ttl'
        ? { GENJOBS_ARCHIVE: 'off', GENJOBS_JOB_TTL: TTL_MODE_JOB_TTL }
        : { GENJOBS_ARCHIVE: 'off' }),
  };
  const stops: Array<() => Promise<void>> = [];
  try {
    const controller = await ns.startController({
      ...env,
      GENJOBS_WORKER_COMMAND: JSON.stringify(INSTANT_WORKER_COMMAND),
      GENJOBS_CONTROLLER_CONCURRENCY: '16',
    });
    stops.unshift(() => controller.stop());
    const agent = await ns.startAgent(E2E_SLOTS);
    stops.unshift(() => agent.stop());
    const { proc: api, client } = await ns.startApi(env);
    stops.unshift(
      async () => client.close(),
      () => api.stop(),
    );
    const informer = crInformer<GenerationJob>(ns.kube, ns.r.jobs, silentLogger());
    const tracker = new StageTracker(informer, jobStage);
    stops.unshift(() => informer.stop());
    await informer.start();
    await informer.waitForSync();
    await waitForModel(client, INSTANT_MODEL);

    const pids = {
      ...basePids(ctx.cluster.cp),
      api: api.pid,
      controller: controller.pid,
      'node agent': agent.pid,
      ...(mode === 'on' ? { postgres: archive.pid } : {}),
    };
    const requestsBefore = await ctx.meter.snapshot();
    const ids: string[] = [];
    // Jobs of the run gone from etcd so far, from the bench's own cache (no request in the window).
    const deleted = () => ids.length - informer.list().length;
    const mark = async () => ({
      at: performance.now(),
      cpu: await cpuSnapshot(pids, ['postgres']),
      deleted: deleted(),
      archived: mode === 'on' ? await archive.rowsOf(accounts) : 0,
    });
    // The window: from the end of the warm-up until no more jobs are started, with
    // snapshots taken on time while the load goes on.
    const opened = sleep(plan.warmUpS * 1000).then(mark);
    const closing = sleep((plan.warmUpS + plan.measureS) * 1000).then(mark);
    const profiled = wantsApiserverProfile()
      ? opened.then(() => profileApiserver(ns.kube, join(ctx.dir, 'logs'), `${name}-${mode}`, plan.measureS))
      : undefined;
    // Each of IN_FLIGHT clients submits a job and waits for its end before the next: jobs
    // are submitted as fast as they complete, so the window holds a steady state (a burst of
    // submits first, as scenario 4 sends, would leave them all out of a later window).
    await closedLoop(
      IN_FLIGHT,
      Number.POSITIVE_INFINITY,
      async (i) => {
        const id = await submitInstantJob(client, keys[i % keys.length]!);
        ids.push(id);
        if (!(await tracker.doneWithin([id], plan.budgetMs, 'job')))
          throw new Error(`job ${id} not completed within ${plan.budgetMs / 1000} s`);
      },
      plan.warmUpS + plan.measureS,
    );
    const from = await opened;
    const to = await closing;
    if (profiled) ctx.progress(`apiserver profile: ${await profiled}`);
    const doneAt = (id: string) => tracker.seen.get(id)?.done ?? Number.NaN;
    const done = ids.filter((id) => !Number.isNaN(doneAt(id)));
    const inWindow = done.filter((id) => doneAt(id) >= from.at && doneAt(id) < to.at).length;
    const seconds = (to.at - from.at) / 1000;
    const result: ArchiveE2eRun = {
      archive: mode,
      jobs: ids.length,
      completed: inWindow,
      seconds: round(seconds, 2),
      jobsPerSecond: round(inWindow / seconds, 2),
      deletesPerJob: round((to.deleted - from.deleted) / Math.max(1, inWindow), 2),
      cpu: cpuUse(from.cpu, to.cpu, Math.max(1, inWindow)),
      writesPerJob: { total: 0, byResource: {} },
      conflictsPerJob: 0,
      readsPerJob: { total: 0, byResource: {} },
    };
    const live = async () => (await ns.r.jobs.list()).items.length;
    const rows = async () => (mode === 'on' ? await archive.rowsOf(accounts) : done.length);
    if (mode === 'on') {
      result.archivedPerJob = round((to.archived - from.archived) / Math.max(1, inWindow), 2);
      result.archivedPerSecond = round((to.archived - from.archived) / seconds, 2);
    }
    // With a delete, until every job was archived (on) and its resource deleted: the
    // archiver, or the TTL, caught up.
    if (mode !== 'off') {
      const drainFrom = performance.now();
      const drainDeadline = drainFrom + (ctx.quick ? 60_000 : 120_000);
      while ((await rows()) < done.length || (await live()) > ids.length - done.length) {
        if (performance.now() > drainDeadline) break;
        await sleep(500);
      }
      result.drainSeconds =
        performance.now() > drainDeadline ? Number.NaN : round((performance.now() - drainFrom) / 1000, 1);
      // A run whose jobs never left is no measure of archiving (an archive that refused the
      // install, a stuck archiver): the scenario fails, naming it, rather than report it.
      if (Number.isNaN(result.drainSeconds)) {
        throw new Error(
          `archive ${mode}: ${await rows()} of ${done.length} jobs archived and ${await live()} still resources ${Math.round((drainDeadline - drainFrom) / 1000)} s after the run (logs/${name}-controller.log)`,
        );
      }
    }
    // Every mode's requests are counted until its Pods are deleted (keepFinished after they
    // stop, in every mode) and its credit leases closed, so each pays for its whole life.
    await quiesce(
      'Pods deleted and leases closed',
      () => genjobsSettled(ns.kube, ns.r, { podsDeleted: true }),
      120_000,
    );
    const requestsAfter = await ctx.meter.snapshot();
    const writes = writesBetween(requestsBefore, requestsAfter);
    const items = Math.max(1, done.length);
    result.writesPerJob = perItem(writes, items);
    result.conflictsPerJob = round(writes.conflicts / items, 3);
    result.readsPerJob = perItem(readsBetween(requestsBefore, requestsAfter), items);
    return result;
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}
