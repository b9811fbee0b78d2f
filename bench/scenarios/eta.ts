/**
 * Scenario 10: how right the completion estimate is. A mixed workload (images, and videos
 * of 4, 6 and 8 seconds) runs through the whole service with the real builtin runtimes;
 * every job's record is read twice a second. Its estimate is taken at submit (the submit
 * answer) and halfway (the reading nearest the middle between submit and completion), and
 * compared with when it completed: |predicted − actual|, in seconds and as a share of the
 * time that was left. "warm" counts only jobs whose variant had five completions when
 * they were submitted (the estimate then uses observed run times, not the catalog's).
 */
import { parse, stringify } from 'yaml';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import { MIN_HISTORY } from '../../src/jobs/eta.ts';
import type { ConfigMap } from '../../src/k8s/configmaps.ts';
import { type BenchContext, BenchNamespace } from '../harness/context.ts';
import { percentile, round, sleep, waitFor } from '../harness/stats.ts';

interface Errors {
  jobs: number;
  medianSeconds: number;
  p90Seconds: number;
  /** |predicted − actual| ÷ the time left when the estimate was made. */
  medianShare: number;
  p90Share: number;
}

export interface EtaResult {
  jobs: number;
  /** Slots of each variant, and of the node agent. */
  capacity: number;
  slots: number;
  atSubmit: { all: Errors; warm: Errors };
  halfway: { all: Errors; warm: Errors };
  /** Every job, relative to its submit (ms): to see where an estimate went wrong. */
  samples: Array<{
    model: string;
    units: number;
    warm: boolean;
    positionAtSubmit?: number;
    predicted: number;
    started?: number;
    done: number;
    /** The job's own status: when the controller admitted it and its run (startedAt to completedAt). */
    admitted?: number;
    runMs?: number;
    /** The reading nearest the middle: when it was read and the completion it predicted. */
    halfway: { at: number; predicted: number };
  }>;
  /** The warm figures per model variant: which one the error comes from. */
  warmByModel: Record<string, { atSubmit: Errors; halfway: Errors; meanSignedSecondsAtSubmit: number }>;
}

const IMAGE = 'genjobs/reference-image/text-to-image';
const VIDEO = 'genjobs/reference-video/text-to-video';

interface Tracked {
  model: string;
  /** Seconds of video, 1 for an image. */
  units: number;
  submitAt: number;
  warm: boolean;
  readings: Array<{ at: number; eta: number; position?: number }>;
  /** When a reading first showed it processing. */
  started?: number;
  done?: number;
  /** From the GenerationJob's status, read once it finished. */
  admitted?: number;
  runMs?: number;
}

function errors(samples: Array<{ error: number; left: number }>): Errors {
  const s = samples.map((x) => x.error).sort((a, b) => a - b);
  const share = samples.map((x) => x.error / Math.max(1, x.left)).sort((a, b) => a - b);
  return {
    jobs: samples.length,
    medianSeconds: round(percentile(s, 50) / 1000, 1),
    p90Seconds: round(percentile(s, 90) / 1000, 1),
    medianShare: round(percentile(share, 50), 3),
    p90Share: round(percentile(share, 90), 3),
  };
}

/** The workload: one in two an image, the others videos of 4, 6 or 8 seconds, no sound. */
function inputOf(i: number): { model: string; input: Record<string, unknown> } {
  if (i % 2 === 0)
    return { model: IMAGE, input: { prompt: `a lighthouse ${i}`, resolution: i % 4 ? '1k' : '2k' } };
  return {
    model: VIDEO,
    input: { prompt: `a lighthouse ${i}`, duration: [4, 6, 8][i % 3], has_sound: false },
  };
}

/** The default catalog with the two reference variants' slots set to `capacity`. */
async function catalogWithCapacity(capacity: number): Promise<ConfigMap> {
  const cm = await defaultCatalogConfigMap();
  const data: Record<string, string> = {};
  for (const [file, text] of Object.entries(cm.data ?? {})) {
    const doc = parse(text) as {
      models?: Array<{ variants: Record<string, { runtime: { maxConcurrency: number } }> }>;
    };
    for (const model of doc.models ?? [])
      for (const variant of Object.values(model.variants)) variant.runtime.maxConcurrency = capacity;
    data[file] = stringify(doc, { aliasDuplicateObjects: false });
  }
  return { ...cm, data };
}

export async function etaScenario(ctx: BenchContext): Promise<EtaResult> {
  const total = ctx.quick ? 16 : 60;
  const gapMs = ctx.quick ? 500 : 1500;
  const ns = await BenchNamespace.create(ctx, 'bench-eta');
  // Slots per variant and on the node: BENCH_ETA_CAPACITY, BENCH_ETA_SLOTS (see the README).
  const capacity = Number(process.env.BENCH_ETA_CAPACITY ?? 1);
  const slots = Number(process.env.BENCH_ETA_SLOTS ?? 2 * capacity);
  await ns.installCatalog([await catalogWithCapacity(capacity)]);
  const key = await ns.account('eta');
  const { proc: api, client } = await ns.startApi();
  // Worker Pods write their outputs through the api's /files: the controller must name it.
  const controller = await ns.startController({
    GENJOBS_PUBLIC_URL: api.url,
    GENJOBS_BLOB_INTERNAL_URL: `${api.url}/files`,
  });
  const agent = await ns.startAgent(slots);
  const jobs = new Map<string, Tracked>();
  const completed = new Map<string, number>();
  const failures: string[] = [];
  try {
    ctx.progress(`eta: ${total} mixed jobs, one every ${gapMs} ms`);
    let polling = true;
    const poll = (async () => {
      while (polling) {
        await Promise.all(
          [...jobs]
            .filter(([, t]) => t.done === undefined)
            .map(async ([id, t]) => {
              const res = await client.call('GET', `/v1/jobs/${id}`, { key });
              const job = JSON.parse(res.body);
              const now = Date.now();
              if (job.estimatedCompletionTime)
                t.readings.push({
                  at: now,
                  eta: Date.parse(job.estimatedCompletionTime),
                  position: job.queuePosition,
                });
              if (job.status === 'processing') t.started ??= now;
              if (job.status === 'failed') failures.push(`${id}: ${JSON.stringify(job.error)}`);
              if (job.status === 'completed' || job.status === 'failed') {
                t.done = Date.parse(job.completedAt ?? '') || now;
                completed.set(t.model, (completed.get(t.model) ?? 0) + 1);
              }
            }),
        );
        await sleep(500);
      }
    })();
    for (let i = 0; i < total; i++) {
      const { model, input } = inputOf(i);
      const submitAt = Date.now();
      const res = await client.call('POST', '/v1/jobs/submit', { key, json: { model, input } });
      if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${res.body}`);
      const body = JSON.parse(res.body);
      jobs.set(body.jobId, {
        model,
        units: Number(input.duration ?? 1),
        submitAt,
        warm: (completed.get(model) ?? 0) >= MIN_HISTORY,
        readings: [{ at: submitAt, eta: Date.parse(body.estimatedCompletionTime) }],
      });
      await sleep(gapMs);
    }
    await waitFor(
      'every job finished',
      () => [...jobs.values()].every((t) => t.done !== undefined),
      900_000,
      500,
    );
    polling = false;
    await poll;
    // A failed job's end says nothing of the estimate: the run is void.
    if (failures.length > 0) throw new Error(`${failures.length} jobs failed, e.g. ${failures[0]}`);
    for (const [id, t] of jobs) {
      const s = (await ns.r.jobs.get(id))?.status;
      const started = Date.parse(s?.startedAt ?? '');
      if (!Number.isFinite(started)) continue;
      t.admitted = started;
      t.runMs = Date.parse(s?.completedAt ?? '') - started;
    }
  } finally {
    client.close();
    await api.stop();
    await agent.stop();
    await controller.stop();
  }
  const tracked = [...jobs.values()];
  const atSubmit = (t: Tracked) => ({
    error: Math.abs(t.readings[0]!.eta - t.done!),
    left: t.done! - t.submitAt,
  });
  const halfwayReading = (t: Tracked) => {
    const mid = t.submitAt + (t.done! - t.submitAt) / 2;
    return t.readings.reduce((best, x) => (Math.abs(x.at - mid) < Math.abs(best.at - mid) ? x : best));
  };
  const halfway = (t: Tracked) => {
    const r = halfwayReading(t);
    return { error: Math.abs(r.eta - t.done!), left: t.done! - r.at };
  };
  const warm = tracked.filter((t) => t.warm);
  const warmByModel: EtaResult['warmByModel'] = {};
  for (const model of [IMAGE, VIDEO]) {
    const mine = warm.filter((t) => t.model === model);
    if (mine.length === 0) continue;
    // Positive: the estimate was late (too pessimistic); negative: too optimistic.
    const signed = mine.reduce((sum, t) => sum + (t.readings[0]!.eta - t.done!), 0) / mine.length / 1000;
    warmByModel[model] = {
      atSubmit: errors(mine.map(atSubmit)),
      halfway: errors(mine.map(halfway)),
      meanSignedSecondsAtSubmit: round(signed, 1),
    };
  }
  return {
    warmByModel,
    samples: tracked.map((t) => ({
      model: t.model.split('/')[2] ?? t.model,
      units: t.units,
      warm: t.warm,
      positionAtSubmit: t.readings[1]?.position,
      predicted: t.readings[0]!.eta - t.submitAt,
      ...(t.started !== undefined ? { started: t.started - t.submitAt } : {}),
      done: t.done! - t.submitAt,
      ...(t.admitted !== undefined ? { admitted: t.admitted - t.submitAt, runMs: t.runMs } : {}),
      halfway: { at: halfwayReading(t).at - t.submitAt, predicted: halfwayReading(t).eta - t.submitAt },
    })),
    jobs: tracked.length,
    capacity,
    slots,
    atSubmit: { all: errors(tracked.map(atSubmit)), warm: errors(warm.map(atSubmit)) },
    halfway: { all: errors(tracked.map(halfway)), warm: errors(warm.map(halfway)) },
  };
}
