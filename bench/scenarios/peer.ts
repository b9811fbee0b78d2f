/**
 * Scenario 7: the same no-op items as batch/v1 Jobs (one Job per item, as genjobs has one
 * GenerationJob per job), run by the Kubernetes Job controller of kube-controller-manager
 * (built from the same pinned module as the apiserver), their Pods run by the same node
 * agent with the same command. Items per second and apiserver writes per item, and the
 * ratio genjobs ÷ Job controller.
 *
 * The Job controller gets what genjobs' controller gets: 16 concurrent syncs and no
 * client-side rate limit worth the name (its defaults, 5 syncs and 20 requests per second,
 * would measure the defaults, not the design).
 */
import { join } from 'node:path';
import { BatchV1Api, type V1Job, type V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Runtime } from '../../src/catalog/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildWorkerPod } from '../../src/controller/job/pod.ts';
import { startSupervised } from '../../src/dev/process.ts';
import { Informer } from '../../src/k8s/informer.ts';
import { API_VERSION, type GenerationJob } from '../../src/k8s/types.ts';
import { silentLogger } from '../../src/log.ts';
import { profileApiserver, wantsApiserverProfile } from '../harness/apiserver-profile.ts';
import { INSTANT_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace, INSTANT_WORKER_COMMAND } from '../harness/context.ts';
import { basePids, type CpuUse, cpuSnapshot, cpuUse } from '../harness/cpu.ts';
import { onCleanup } from '../harness/procs.ts';
import { quiesce } from '../harness/quiet.ts';
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
import { E2E_SLOTS } from './e2e.ts';

export interface PeerResult {
  items: number;
  /** Set when not every item finished within the time box. */
  incomplete?: string;
  slots: number;
  concurrentJobSyncs: number;
  create: LoadResult;
  seconds: number;
  itemsPerSecond: number;
  createToComplete: Latency;
  writes: WriteCounts;
  writesPerItem: { total: number; byResource: Record<string, number> };
  workWritesPerItem: number;
  reads: ReadCounts;
  readsPerItem: { total: number; byResource: Record<string, number> };
  /** CPU by process from the first create to the last completion seen (the items/s window). */
  cpu: CpuUse;
  /** genjobs end-to-end jobs per second ÷ Job controller items per second. */
  genjobsRatio: number;
  /** genjobs work writes per job ÷ Job controller work writes per item. */
  genjobsWritesRatio: number;
}

const SYNCS = 16;

/**
 * The peer's Pod is the genjobs worker Pod of the same item (its security settings, scratch
 * volume, resources and environment, the job's input included) with the same no-op
 * command, so the two runs differ in what orchestrates the Pods, not in the Pods.
 */
function workerPodTemplate(): V1PodTemplateSpec {
  const config = loadConfig({});
  const job = {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    metadata: { name: '00000000-0000-4000-8000-000000000000', uid: '' },
    spec: {
      account: 'peer',
      model: INSTANT_MODEL,
      version: 'v1.0',
      input: { prompt: 'a lighthouse at dusk', resolution: '1k' },
      costMicroCents: 134000,
    },
  } as GenerationJob;
  const runtime = {
    type: 'builtin',
    maxConcurrency: 100_000,
    timeoutSeconds: 600,
    typicalSeconds: 1,
  } as Runtime;
  const pod = buildWorkerPod(job, 1, runtime, {
    image: 'genjobs-bench/noop',
    command: INSTANT_WORKER_COMMAND,
    blobUrl: 'http://127.0.0.1:8080/files',
    blobPublicUrl: 'http://127.0.0.1:8080/files',
    blobGrant: 'gj1.bench.0.0.0',
    resources: config.GENJOBS_WORKER_RESOURCES,
  });
  const { activeDeadlineSeconds: _deadline, ...spec } = pod.spec!;
  return { metadata: { labels: { 'genjobs-bench/item': 'peer' } }, spec };
}

const TEMPLATE = workerPodTemplate();

function jobFor(name: string): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, labels: { 'genjobs-bench/item': 'peer' } },
    spec: {
      backoffLimit: 0,
      completions: 1,
      parallelism: 1,
      activeDeadlineSeconds: 600,
      template: TEMPLATE,
    },
  };
}

function condition(job: V1Job, type: string): boolean {
  return job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

export async function peerScenario(ctx: BenchContext): Promise<PeerResult> {
  const n = Number(process.env.BENCH_ITEMS ?? (ctx.quick ? 60 : 2000));
  const budgetMs = ctx.quick ? 75_000 : Number(process.env.BENCH_PEER_BUDGET_S ?? 210) * 1000;
  const ns = await BenchNamespace.create(ctx, 'bench-peer');
  const batch = ns.kube.kc.makeApiClient(BatchV1Api);
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  try {
    const kcm = startSupervised(
      'kube-controller-manager',
      join(ctx.cluster.cp.assetsDir, 'kube-controller-manager'),
      [
        `--kubeconfig=${ns.kubeconfig}`,
        '--controllers=job',
        '--leader-elect=false',
        '--secure-port=0',
        '--use-service-account-credentials=false',
        `--concurrent-job-syncs=${SYNCS}`,
        '--kube-api-qps=1000',
        '--kube-api-burst=1000',
      ],
      { logFile: join(ctx.dir, 'logs', 'kube-controller-manager.log') },
    );
    const unregister = onCleanup('kube-controller-manager', () => kcm.stop());
    stops.push(async () => {
      stopping = true;
      await kcm.stop();
      unregister();
    });
    void kcm.exited.then((code) => {
      if (!stopping)
        ctx.progress(`kube-controller-manager exited (${code}); see logs/kube-controller-manager.log`);
    });
    const agent = await ns.startAgent(E2E_SLOTS);
    stops.unshift(() => agent.stop());

    const informer = new Informer<V1Job>(ns.kube, {
      path: `/apis/batch/v1/namespaces/${ns.name}/jobs`,
      list: () => batch.listNamespacedJob({ namespace: ns.name }),
      log: silentLogger(),
    });
    const tracker = new StageTracker(informer, (job) => ({
      started: (job.status?.ready ?? 0) > 0,
      done: condition(job, 'Complete'),
      failed: condition(job, 'Failed') ? 'Failed' : undefined,
    }));
    stops.unshift(() => informer.stop());
    await informer.start();
    await informer.waitForSync();

    // One item first: the Job controller is up and the agent runs its Pods.
    ctx.progress('peer: waiting for the Job controller to run a first Job');
    await batch.createNamespacedJob({ namespace: ns.name, body: jobFor('warm-up') });
    await tracker.allDone(['warm-up'], 60_000, 'Job');
    await quiesce('warm-up Job settled', () => settled(ns), 60_000);

    ctx.progress(`peer: ${n} Jobs created at concurrency 64, run to completion by the Job controller`);
    const before = await ctx.meter.snapshot();
    const pids = {
      ...basePids(ctx.cluster.cp),
      'kube-controller-manager': kcm.child.pid,
      'node agent': agent.pid,
    };
    const cpuBefore = await cpuSnapshot(pids);
    const created: Array<{ name: string; at: number }> = [];
    const profiled = wantsApiserverProfile()
      ? profileApiserver(ns.kube, join(ctx.dir, 'logs'), 'peer', 20)
      : undefined;
    const first = performance.now();
    const load = await closedLoop(64, n, async (i) => {
      const name = `item-${i}`;
      const at = performance.now();
      await batch.createNamespacedJob({ namespace: ns.name, body: jobFor(name) });
      created.push({ name, at });
    });
    const names = created.map((c) => c.name);
    const complete = await tracker.doneWithin(names, budgetMs - (performance.now() - first), 'Job');
    const cpuAfter = await cpuSnapshot(pids);
    if (profiled) ctx.progress(`apiserver profile: ${await profiled}`);
    const done = created.filter((c) => tracker.seen.get(c.name)?.done !== undefined);
    const last = complete ? Math.max(...done.map((c) => tracker.seen.get(c.name)!.done!)) : performance.now();
    if (complete) await quiesce('Job Pods finalized', () => settled(ns), 120_000);
    const after = await ctx.meter.snapshot();
    const writes = writesBetween(before, after);
    const reads = readsBetween(before, after);

    const seconds = (last - first) / 1000;
    const finished = Math.max(1, done.length);
    const itemsPerSecond = round(done.length / seconds, 2);
    const work = round(workWrites(writes) / finished, 3);
    return {
      items: n,
      ...(complete
        ? {}
        : {
            incomplete: `${done.length} of ${n} completed within the ${Math.round(budgetMs / 1000)} s time box; writes per item include the unfinished items' writes so far`,
          }),
      slots: E2E_SLOTS,
      concurrentJobSyncs: SYNCS,
      create: load,
      seconds: round(seconds, 2),
      itemsPerSecond,
      createToComplete: latency(done.map((c) => tracker.seen.get(c.name)!.done! - c.at)),
      writes,
      writesPerItem: perItem(writes, finished),
      workWritesPerItem: work,
      reads,
      readsPerItem: perItem(reads, finished),
      cpu: cpuUse(cpuBefore, cpuAfter, finished),
      genjobsRatio: ratio(ctx.shared.e2eJobsPerSecond, itemsPerSecond),
      genjobsWritesRatio: ratio(ctx.shared.e2eWorkWritesPerJob, work),
    };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

/** Every Pod finished with its Job-tracking finalizer removed, so the Job controller is done writing. */
async function settled(ns: BenchNamespace): Promise<boolean> {
  const pods = await ns.kube.core.listNamespacedPod({ namespace: ns.name });
  return pods.items.every(
    (p) =>
      (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') && !p.metadata?.finalizers?.length,
  );
}
