/**
 * Scenario 5: the controller's and the api's memory with many GenerationJobs in their
 * caches. The jobs are written with the raw client while neither runs (so the figures are
 * of a cache loaded by a list, as after a restart, not of one that grew with watch
 * churn), mostly finished with the status a finished job carries; then both are started,
 * left to finish their start-up reconciles, and asked for their heap after a full GC.
 */
import { randomUUID } from 'node:crypto';
import { jobOutputKey } from '../../src/blob/keys.ts';
import { podName } from '../../src/controller/job/decide.ts';
import { labelValue } from '../../src/jobs/labels.ts';
import type { GenerationJob, GenerationJobStatus } from '../../src/k8s/types.ts';
import { INSTANT_MODEL, PAUSED_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace } from '../harness/context.ts';
import type { ServiceProcess } from '../harness/procs.ts';
import { closedLoop, round, sleep, waitFor } from '../harness/stats.ts';

export interface MemoryLevel {
  jobs: number;
  controller: { rss: number; heapUsed: number };
  api: { rss: number; heapUsed: number };
}

export interface MemoryResult {
  /** Share of the cached jobs that are finished (the rest wait on a paused variant). */
  finishedShare: number;
  /** Mean size of one cached job as JSON, for scale. */
  jsonBytesPerJob: number;
  levels: MemoryLevel[];
  /** Heap growth between the two largest levels ÷ the jobs added: what one more cached job costs. */
  controllerHeapBytesPerJob: number;
  apiHeapBytesPerJob: number;
  controllerRssBytesPerJob: number;
  apiRssBytesPerJob: number;
  /** Job count targets not reached within the time budget (the figures use what was reached). */
  shortOf?: string;
  createPerSecond: number;
}

function finishedStatus(job: GenerationJob, i: number, publicUrl: string): GenerationJobStatus {
  const id = job.metadata.name ?? '';
  const created = Date.parse(job.metadata.creationTimestamp ?? '') || Date.now();
  const at = (ms: number) => new Date(created + ms).toISOString();
  const failed = i % 50 === 1;
  const condition = (type: string, reason: string, message: string, ms: number) => ({
    type,
    status: 'True' as const,
    reason,
    message,
    lastTransitionTime: at(ms),
    observedGeneration: 1,
  });
  return {
    phase: failed ? 'failed' : 'completed',
    progress: failed ? 0 : 100,
    startedAt: at(1200),
    completedAt: at(31_000),
    attempts: 1,
    podName: podName(id, 1),
    observedGeneration: 1,
    ...(failed
      ? {
          error: { code: 'GENERATION_FAILED', message: 'the worker exited with code 1: out of ideas' },
          refundedMicroCents: job.spec.costMicroCents,
        }
      : { outputs: [{ url: `${publicUrl}/${jobOutputKey(id, 'output-0.png')}`, type: 'image' as const }] }),
    conditions: [
      condition('Admitted', 'Admitted', 'a worker Pod was created', 300),
      condition('Started', 'PodRunning', `worker Pod ${podName(id, 1)} is running`, 1200),
      condition(
        'Finished',
        failed ? 'GENERATION_FAILED' : 'Completed',
        failed ? 'the worker exited with code 1: out of ideas' : 'the job produced its outputs',
        31_000,
      ),
    ],
  };
}

export async function memoryScenario(ctx: BenchContext): Promise<MemoryResult> {
  const targets = ctx.quick ? [1000, 2000] : [10_000, 50_000];
  const budgetMs = ctx.quick ? 25_000 : 260_000;
  const ns = await BenchNamespace.create(ctx, 'bench-mem');
  await ns.installBenchCatalog();
  const publicUrl = 'http://127.0.0.1:8080/files';
  const r = ns.r;
  const deadline = Date.now() + budgetMs;

  let made = 0;
  let createSeconds = 0;
  const create = async (upTo: number) => {
    const from = made;
    const load = await closedLoop(
      128,
      upTo - from,
      async (k) => {
        const i = from + k;
        // One in fifty waits on the paused variant; the rest finished (one in fifty of those failed).
        const pending = i % 50 === 0;
        const model = pending ? PAUSED_MODEL : INSTANT_MODEL;
        const account = `acct-${i % 200}`;
        const job = await r.jobs.create({
          metadata: {
            name: randomUUID(),
            labels: { 'genjobs.io/account': account, 'genjobs.io/model': labelValue(model) },
          },
          spec: {
            account,
            model,
            version: 'v1.0',
            input: { prompt: `a lighthouse at dusk, take ${i}`, resolution: '1k', aspect_ratio: '1:1' },
            costMicroCents: 134000,
            requestId: randomUUID(),
          },
        });
        if (!pending) await r.jobs.updateStatus({ ...job, status: finishedStatus(job, i, publicUrl) });
      },
      Math.max(1, (deadline - Date.now()) / 1000),
    );
    made += load.count;
    createSeconds += load.seconds;
  };

  const measure = async (): Promise<MemoryLevel> => {
    const controller = await ns.startController();
    const { proc: api, client } = await ns.startApi();
    try {
      await controllerIdle(controller, made);
      const [c, a] = [await controller.memory(), await api.memory()];
      return {
        jobs: made,
        controller: { rss: c.vmRss, heapUsed: c.heapUsed },
        api: { rss: a.vmRss, heapUsed: a.heapUsed },
      };
    } finally {
      client.close();
      await api.stop();
      await controller.stop();
    }
  };

  ctx.progress('memory: controller and api with no job cached');
  const levels: MemoryLevel[] = [await measure()];
  for (const target of targets) {
    ctx.progress(`memory: writing jobs up to ${target} (create + status), then measuring`);
    await create(target);
    levels.push(await measure());
  }
  const sample = (await r.jobs.list({ limit: 200 })).items;
  const jsonBytes = sample.reduce((sum, j) => sum + Buffer.byteLength(JSON.stringify(j)), 0) / sample.length;

  const [lo, hi] = [levels.at(-2)!, levels.at(-1)!];
  const per = (f: (l: MemoryLevel) => number) => round((f(hi) - f(lo)) / Math.max(1, hi.jobs - lo.jobs), 0);
  return {
    finishedShare: 0.98,
    jsonBytesPerJob: round(jsonBytes, 0),
    levels,
    controllerHeapBytesPerJob: per((l) => l.controller.heapUsed),
    apiHeapBytesPerJob: per((l) => l.api.heapUsed),
    controllerRssBytesPerJob: per((l) => l.controller.rss),
    apiRssBytesPerJob: per((l) => l.api.rss),
    ...(made < targets.at(-1)!
      ? { shortOf: `reached ${made} of ${targets.at(-1)} jobs within the ${budgetMs / 1000} s budget` }
      : {}),
    createPerSecond: round(made / createSeconds, 1),
  };
}

/**
 * Waits until the controller has reconciled every job once and its queue is empty: its
 * start-up work (one reconcile per cached job, a requeue-after for each) is part of what
 * a cached job costs it.
 */
async function controllerIdle(controller: ServiceProcess, jobs: number): Promise<void> {
  const scrape = async () => {
    const text = await (await fetch(`${controller.url}/metrics`)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    return {
      depth: value(/^genjobs_workqueue_depth\{kind="GenerationJob"\} (\S+)$/m),
      reconciled: value(/^genjobs_reconcile_duration_seconds_count\{kind="GenerationJob"\} (\S+)$/m),
    };
  };
  await waitFor(
    `controller reconciled ${jobs} jobs`,
    async () => {
      const s = await scrape();
      return s.depth === 0 && s.reconciled >= jobs;
    },
    300_000,
    500,
  );
  await sleep(1000);
}
