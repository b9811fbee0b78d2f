/**
 * Scenario 4: N jobs through the whole service (api, controller, node agent, a worker
 * process that reports at once), from submit to completed, with every apiserver write the
 * run caused counted by resource, against the write-bound limit: raw creates per second
 * (scenario 1, concurrency 64) divided by the writes one job costs.
 */
import { join } from 'node:path';
import { crInformer } from '../../src/k8s/cr-informer.ts';
import type { GenerationJob } from '../../src/k8s/types.ts';
import { silentLogger } from '../../src/log.ts';
import { profileApiserver, wantsApiserverProfile } from '../harness/apiserver-profile.ts';
import { INSTANT_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace, INSTANT_WORKER_COMMAND } from '../harness/context.ts';
import { basePids, type CpuUse, cpuSnapshot, cpuUse } from '../harness/cpu.ts';
import type { ApiClient } from '../harness/http.ts';
import { genjobsSettled, quiesce } from '../harness/quiet.ts';
import { closedLoop, type Latency, type LoadResult, latency, ratio, round } from '../harness/stats.ts';
import { StageTracker } from '../harness/tracker.ts';
import {
  perItem,
  type ReadCounts,
  readsBetween,
  type WriteCounts,
  workWrites,
  writesBetween,
} from '../harness/writes.ts';
import { waitForModel } from './api.ts';

export interface E2eResult {
  jobs: number;
  /** Set when not every job finished within the time box. */
  incomplete?: string;
  /** Node agent slots (Pods at once) and controller reconcile workers. */
  slots: number;
  controllerConcurrency: number;
  submit: LoadResult;
  /** First submit sent to last completion seen. */
  seconds: number;
  jobsPerSecond: number;
  submitToProcessing: Latency;
  submitToCompleted: Latency;
  /** Jobs whose `processing` phase the watch never saw (the Pod ended before the controller saw it run). */
  processingNotObserved: number;
  /** One job at a time on an idle service: the latency floor. */
  idle: { jobs: number; submitToProcessing: Latency; submitToCompleted: Latency };
  writes: WriteCounts;
  writesPerJob: { total: number; byResource: Record<string, number> };
  /** Writes per job without node heartbeats and leases. */
  workWritesPerJob: number;
  reads: ReadCounts;
  readsPerJob: { total: number; byResource: Record<string, number> };
  /** CPU by process from the first submit to the last completion seen (the jobs/s window). */
  cpu: CpuUse;
  /** Raw GenerationJob creates per second at concurrency 64 (the service's own client) ÷ work writes per job. */
  writeBoundJobsPerSecond: number;
  ratioToWriteBound: number;
}

export const E2E_SLOTS = 64;

export async function e2eScenario(ctx: BenchContext): Promise<E2eResult> {
  const n = Number(process.env.BENCH_ITEMS ?? (ctx.quick ? 60 : 2000));
  const idleJobs = ctx.quick ? 3 : 10;
  const concurrency = 16;
  const budgetMs = ctx.quick ? 75_000 : Number(process.env.BENCH_E2E_BUDGET_S ?? 270) * 1000;
  const ns = await BenchNamespace.create(ctx, 'bench-e2e');
  await ns.installBenchCatalog();
  const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => ns.account(`e2e-${i}`)));
  const { proc: api, client } = await ns.startApi();
  const stops: Array<() => Promise<void>> = [async () => client.close(), () => api.stop()];
  const informer = crInformer<GenerationJob>(ns.kube, ns.r.jobs, silentLogger());
  try {
    const controller = await ns.startController({
      GENJOBS_WORKER_COMMAND: JSON.stringify(INSTANT_WORKER_COMMAND),
      GENJOBS_CONTROLLER_CONCURRENCY: String(concurrency),
    });
    stops.unshift(() => controller.stop());
    const agent = await ns.startAgent(E2E_SLOTS);
    stops.unshift(() => agent.stop());
    const tracker = new StageTracker(informer, jobStage);
    stops.unshift(() => informer.stop());
    await informer.start();
    await informer.waitForSync();
    await waitForModel(client, INSTANT_MODEL);

    const submit = (key: string) => submitInstantJob(client, key);
    const startOf = (id: string) => {
      const rec = tracker.seen.get(id);
      return rec?.started ?? rec?.done ?? Number.NaN;
    };

    ctx.progress(`e2e: ${idleJobs} jobs one at a time on the idle service`);
    const idle: Array<{ toStart: number; toDone: number }> = [];
    for (let i = 0; i < idleJobs; i++) {
      const at = performance.now();
      const id = await submit(keys[i % keys.length]!);
      await tracker.allDone([id], 60_000, 'idle job');
      idle.push({ toStart: startOf(id) - at, toDone: tracker.seen.get(id)!.done! - at });
    }
    await quiesce('idle jobs settled', () => genjobsSettled(ns.kube, ns.r), 60_000);

    ctx.progress(`e2e: ${n} jobs submitted at concurrency 64 over 8 accounts, run to completion`);
    const before = await ctx.meter.snapshot();
    const pids = {
      ...basePids(ctx.cluster.cp),
      api: api.pid,
      controller: controller.pid,
      'node agent': agent.pid,
    };
    const cpuBefore = await cpuSnapshot(pids);
    const submitted: Array<{ id: string; at: number }> = [];
    const profiled = wantsApiserverProfile()
      ? profileApiserver(ns.kube, join(ctx.dir, 'logs'), 'e2e', 20)
      : undefined;
    const first = performance.now();
    const load = await closedLoop(64, n, async (i) => {
      const at = performance.now();
      submitted.push({ id: await submit(keys[i % keys.length]!), at });
    });
    const ids = submitted.map((s) => s.id);
    // A time box, so a slow build still ends the run in its budget: what finished in time
    // is measured, and the shortfall is reported.
    const complete = await tracker.doneWithin(ids, budgetMs - (performance.now() - first), 'job');
    const cpuAfter = await cpuSnapshot(pids);
    if (profiled) ctx.progress(`apiserver profile: ${await profiled}`);
    const done = submitted.filter((s) => tracker.seen.get(s.id)?.done !== undefined);
    const last = complete ? Math.max(...done.map((s) => tracker.seen.get(s.id)!.done!)) : performance.now();
    if (complete) {
      await quiesce('Pods stopped and reservations settled', () => genjobsSettled(ns.kube, ns.r), 120_000);
    }
    const after = await ctx.meter.snapshot();
    const writes = writesBetween(before, after);
    const reads = readsBetween(before, after);

    const seconds = (last - first) / 1000;
    const finished = Math.max(1, done.length);
    const jobsPerSecond = round(done.length / seconds, 2);
    const work = round(workWrites(writes) / finished, 3);
    const writeBound = round((ctx.shared.rawCreatePerSecondC64 ?? Number.NaN) / work, 2);
    ctx.shared.e2eJobsPerSecond = jobsPerSecond;
    ctx.shared.e2eWorkWritesPerJob = work;
    return {
      jobs: n,
      ...(complete
        ? {}
        : {
            incomplete: `${done.length} of ${n} completed within the ${Math.round(budgetMs / 1000)} s time box; writes per job include the unfinished jobs' writes so far`,
          }),
      slots: E2E_SLOTS,
      controllerConcurrency: concurrency,
      submit: load,
      seconds: round(seconds, 2),
      jobsPerSecond,
      submitToProcessing: latency(done.map((s) => startOf(s.id) - s.at)),
      submitToCompleted: latency(done.map((s) => tracker.seen.get(s.id)!.done! - s.at)),
      processingNotObserved:
        done.length -
        tracker.count(
          'started',
          done.map((s) => s.id),
        ),
      idle: {
        jobs: idleJobs,
        submitToProcessing: latency(idle.map((x) => x.toStart)),
        submitToCompleted: latency(idle.map((x) => x.toDone)),
      },
      writes,
      writesPerJob: perItem(writes, finished),
      workWritesPerJob: work,
      reads,
      readsPerJob: perItem(reads, finished),
      cpu: cpuUse(cpuBefore, cpuAfter, finished),
      writeBoundJobsPerSecond: writeBound,
      ratioToWriteBound: ratio(jobsPerSecond, writeBound),
    };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

/** The stage of a job as the benchmark's watch reads it (StageTracker): a job that did not complete failed. */
export function jobStage(j: GenerationJob): { started: boolean; done: boolean; failed?: string } {
  const phase = j.status?.phase;
  return {
    started: phase === 'processing',
    done: phase === 'completed',
    failed:
      phase === 'failed' || phase === 'cancelled'
        ? `${phase}: ${j.status?.error?.code ?? ''} ${j.status?.error?.message ?? ''}`
        : undefined,
  };
}

/** Submits one job of the instant variant through the api; resolves with its id. */
export async function submitInstantJob(client: ApiClient, key: string): Promise<string> {
  return (
    await client.ok<{ jobId: string }>('POST', '/v1/jobs/submit', {
      key,
      json: { model: INSTANT_MODEL, input: { prompt: 'a lighthouse at dusk' } },
    })
  ).jobId;
}
