/**
 * Scenarios 1 to 3, side by side on one namespace with the api running and no controller
 * (the paused variant would not start anything anyway, and a controller would add a
 * status write per job): raw GenerationJob creates, submits through the api spread over 8
 * accounts and on one account, then reads through the api against raw apiserver GETs.
 */
import { randomUUID } from 'node:crypto';
import { labelValue } from '../../src/jobs/labels.ts';
import type { NewResource } from '../../src/k8s/resources.ts';
import type { GenerationJob } from '../../src/k8s/types.ts';
import { PAUSED_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace } from '../harness/context.ts';
import { basePids, type CpuUse, cpuSnapshot, cpuUse, sumCpu } from '../harness/cpu.ts';
import { closedLoop, type LoadResult, mergeLoads, ratio, sleep, timedLoop } from '../harness/stats.ts';
import { perItem, sumWrites, type WriteCounts } from '../harness/writes.ts';

export interface WriteLevel extends LoadResult {
  /** Successful apiserver writes per operation, by resource. */
  writesPerOp: { total: number; byResource: Record<string, number> };
  conflicts: number;
  /** CPU by process over the measured operations (the api only runs for submits, but is counted throughout). */
  cpu: CpuUse;
  /** submit ÷ raw at the same concurrency (submit levels only). */
  throughputRatio?: number;
  p99Ratio?: number;
}

export interface ReadLevel {
  concurrency: number;
  api: LoadResult;
  raw: LoadResult;
  /** api ÷ raw GETs per second (the target). */
  throughputRatio: number;
}

export interface ApiScenarioResult {
  /** Creates with the service's own apiserver client (kept-alive HTTP/1.1 connections). */
  raw: WriteLevel[];
  submitSpread8: WriteLevel[];
  submitOneAccount: WriteLevel[];
  /**
   * The floor (bench/harness/forwarder.ts): a server that makes one create per request and
   * does nothing else, compared with raw creates like a submit. Its ratio bounds any api's
   * on cores it shares with the load generator and the apiserver.
   */
  forwarder: WriteLevel[];
  reads: ReadLevel[];
}

const INPUT = { prompt: 'a lighthouse at dusk', resolution: '1k' };

function level(load: LoadResult, writes: WriteCounts, cpu: CpuUse): WriteLevel {
  return { ...load, writesPerOp: perItem(writes, load.count), conflicts: writes.conflicts, cpu };
}

function rawBody(): NewResource<GenerationJob> {
  return {
    metadata: {
      name: randomUUID(),
      labels: { 'genjobs.io/account': 'raw', 'genjobs.io/model': labelValue(PAUSED_MODEL) },
    },
    spec: {
      account: 'raw',
      model: PAUSED_MODEL,
      version: 'v1.0',
      input: INPUT,
      costMicroCents: 134000,
      requestId: randomUUID(),
    },
  };
}

export async function apiScenarios(ctx: BenchContext): Promise<ApiScenarioResult> {
  const ns = await BenchNamespace.create(ctx, 'bench-api');
  await ns.installBenchCatalog();
  const { proc, client } = await ns.startApi();
  const forwarder = await ns.startForwarder().catch(async (err: unknown) => {
    client.close();
    await proc.stop();
    throw err;
  });
  try {
    await waitForModel(client, PAUSED_MODEL);
    const levels: Array<[number, number]> = ctx.quick
      ? [
          [1, 100],
          [16, 300],
          [64, 600],
        ]
      : [
          [1, 400],
          [16, 2000],
          [64, 3000],
        ];
    // Per measured load: a loaded machine shortens the sample rather than the budget.
    const cap = ctx.quick ? 3 : 12;
    const result: ApiScenarioResult = {
      raw: [],
      submitSpread8: [],
      submitOneAccount: [],
      forwarder: [],
      reads: [],
    };
    const readable: Array<{ jobId: string; key: string }> = [];
    const submit = async (key: string) => {
      const answer = await client.ok<{ jobId: string }>('POST', '/v1/jobs/submit', {
        key,
        json: { model: PAUSED_MODEL, input: INPUT },
      });
      return answer.jobId;
    };
    const warmOf = (c: number) => Math.min(2 * c, 128);
    const pids = { ...basePids(ctx.cluster.cp), api: proc.pid, forwarder: forwarder.proc.pid };
    const forward = async () => {
      await forwarder.client.ok('POST', '/v1/jobs/submit', { json: { model: PAUSED_MODEL, input: INPUT } });
    };
    // One round of a measured load: warmed up at its concurrency, then timed with the writes
    // and the CPU of every process.
    const round = async (c: number, n: number, op: (i: number) => Promise<void>, seconds: number) => {
      await closedLoop(c, warmOf(c), op);
      const before = await cpuSnapshot(pids);
      const { result, writes } = await ctx.meter.around(() => timedLoop(c, n, op, seconds));
      return { ...result, writes, cpu: cpuUse(before, await cpuSnapshot(pids), result.result.count) };
    };

    // Both clients' JIT warms once, before anything is timed, as in a process that has been
    // serving a while; the per-level warm-up above only ramps the concurrency up. After 300
    // submits the api spent 1.08 ms of CPU per submit, after 6,000 0.92 ms (c=16).
    const jitWarm = ctx.quick ? 500 : 3000;
    ctx.progress(`writes: warming up with ${jitWarm} raw creates and ${jitWarm} submits`);
    const warm = await AccountRotation.create(ns, 'warm', 8, jitWarm);
    await closedLoop(16, jitWarm, async () => void (await ns.r.jobs.create(rawBody())));
    await closedLoop(16, jitWarm, async () => void (await submit(warm.take())));
    await closedLoop(16, jitWarm, forward);

    // Each concurrency's loads run in as many rounds as there are loads, each load in every
    // place of the order once (raw, floor, submits on 8 accounts, on 1; then floor, submits
    // on 8, on 1, raw; ...), so they see the cluster's state alike: etcd, the apiserver's
    // watch cache and the api's job cache grow with every create, and creates on one
    // namespace ran 838/s in an experiment's first round and 648/s after 24,000 more. A load
    // always measured after another would count that against itself.
    for (const [c, n] of levels) {
      // The submits' accounts (spread, one) are made below, as many as the rounds take.
      const loads: Array<[string, (i: number) => Promise<void>]> = [
        ['raw', async () => void (await ns.r.jobs.create(rawBody()))],
        ...(c > 1 ? [['floor', forward] as [string, () => Promise<void>]] : []),
        [
          'spread',
          async () => {
            const key = spread.take();
            const jobId = await submit(key);
            if (c === 64) readable.push({ jobId, key });
          },
        ],
        ['one', async () => void (await submit(one.take()))],
      ];
      const rounds = loads.length;
      ctx.progress(
        `writes: concurrency ${c}, up to ${n} each in ${rounds} rounds: raw creates, ${c > 1 ? 'the floor, ' : ''}submits on 8 accounts, on 1`,
      );
      const perRound = Math.ceil(n / rounds);
      const submits = rounds * (warmOf(c) + perRound);
      const spread = await AccountRotation.create(ns, `s8-c${c}`, 8, submits);
      const one = await AccountRotation.create(ns, `s1-c${c}`, 1, submits);
      // The api's caches see the new accounts and keys before the clock starts.
      await sleep(1000);
      const parts = new Map(loads.map(([name]) => [name, [] as Array<Awaited<ReturnType<typeof round>>>]));
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < loads.length; k++) {
          const [name, op] = loads[(k + r) % loads.length]!;
          parts.get(name)!.push(await round(c, perRound, op, cap / rounds));
        }
      }
      const merged = (name: string) => {
        const of = parts.get(name) ?? [];
        const load = mergeLoads(of);
        return level(
          load,
          sumWrites(of.map((p) => p.writes)),
          sumCpu(
            of.map((p) => p.cpu),
            load.count,
          ),
        );
      };
      const raw = merged('raw');
      result.raw.push(raw);
      if (c > 1) result.forwarder.push(compare(merged('floor'), raw));
      result.submitSpread8.push(compare(merged('spread'), raw));
      result.submitOneAccount.push(compare(merged('one'), raw));
      if (c === 64) ctx.shared.rawCreatePerSecondC64 = raw.perSecond;
    }

    // Let the api's cache catch up with the last writes, so reads measure the cache.
    await sleep(1000);
    const readLevels: Array<[number, number]> = ctx.quick
      ? [
          [1, 300],
          [64, 2000],
        ]
      : [
          [1, 1000],
          [64, 10000],
        ];
    for (const [c, n] of readLevels) {
      ctx.progress(`reads: concurrency ${c}, up to ${n} GETs through the api and straight to the apiserver`);
      const pick = (i: number) => readable[(i * 7919) % readable.length]!;
      // Warmed up with as many reads as are timed: after 200, the api's first timed GETs
      // still ran in its JIT's warm-up (see the archive scenario's reads).
      const load = async (op: (i: number) => Promise<void>) => {
        await closedLoop(c, n, op, cap);
        return closedLoop(c, n, op, cap);
      };
      const api = await load(async (i) => {
        const { jobId, key } = pick(i);
        await client.ok('GET', `/v1/jobs/${jobId}`, { key });
      });
      const raw = await load(async (i) => {
        if (!(await ns.r.jobs.get(pick(i).jobId))) throw new Error(`job ${pick(i).jobId} not found`);
      });
      result.reads.push({ concurrency: c, api, raw, throughputRatio: ratio(api.perSecond, raw.perSecond) });
    }
    return result;
  } finally {
    client.close();
    forwarder.client.close();
    await forwarder.proc.stop();
    await proc.stop();
  }
}

/**
 * The paused jobs never settle, so their reservations would pile up on an account far
 * past any plan's concurrency (the largest default plan allows 100), and each Account
 * write carries all of them. So `lanes` accounts take submits in turn, and each is
 * replaced by a fresh one after {@link PER_ACCOUNT} submits: an account is as busy as a
 * real one at its plan's limit, never larger.
 */
class AccountRotation {
  private next = 0;
  private readonly keys: string[];
  private readonly lanes: number;

  private constructor(keys: string[], lanes: number) {
    this.keys = keys;
    this.lanes = lanes;
  }

  static async create(ns: BenchNamespace, prefix: string, lanes: number, submits: number) {
    const count = lanes * Math.ceil(submits / (lanes * PER_ACCOUNT));
    const keys: string[] = [];
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, (_, k) =>
        ns.account(`${prefix}-${i + k}`),
      );
      keys.push(...(await Promise.all(batch)));
    }
    return new AccountRotation(keys, lanes);
  }

  take(): string {
    const k = this.next++;
    const round = Math.floor(k / (this.lanes * PER_ACCOUNT));
    return this.keys[round * this.lanes + (k % this.lanes)]!;
  }
}

export const PER_ACCOUNT = 100;

function compare(submit: WriteLevel, raw: WriteLevel): WriteLevel {
  return {
    ...submit,
    throughputRatio: ratio(submit.perSecond, raw.perSecond),
    p99Ratio: ratio(submit.p99Ms, raw.p99Ms),
  };
}

export async function waitForModel(
  client: import('../harness/http.ts').ApiClient,
  slug: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.call('GET', `/v1/catalog/models/${slug}`);
    if (res.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`the api does not list ${slug}: ${res.status} ${res.body.slice(0, 200)}`);
    await sleep(200);
  }
}
