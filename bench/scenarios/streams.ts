/**
 * Scenario 9: what open job event streams cost the api. Jobs wait on the paused variant
 * (written with the raw client); the api is measured with no stream, then with N streams
 * open (one per job, each having received its first event), after a full GC. Then one job
 * changes and the time until every stream of that variant saw the news is taken: the
 * fan-out of one informer event to N streams (their queue positions move).
 */
import { randomUUID } from 'node:crypto';
import { type ClientRequest, request } from 'node:http';
import { labelValue } from '../../src/jobs/labels.ts';
import { PAUSED_MODEL } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace } from '../harness/context.ts';
import { closedLoop, round, sleep, waitFor } from '../harness/stats.ts';

export interface StreamsResult {
  streams: number;
  /** The api with every job cached and no stream open: the baseline of the same run. */
  baseline: { rss: number; heapUsed: number };
  open: { rss: number; heapUsed: number };
  /** Growth for all streams, in MB (target: 1,000 streams ≲ 50 MB). */
  rssGrowthMB: number;
  heapGrowthMB: number;
  rssBytesPerStream: number;
  /** ms from a job's deletion (one ahead of every other) until every other stream got an event. */
  fanOutMs: number;
}

interface OpenStream {
  req: ClientRequest;
  events: number;
}

/** Opens one SSE stream with its own socket; resolves once the first event arrived. */
function openStream(url: URL, key: string, jobId: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const s: OpenStream = { req: undefined as unknown as ClientRequest, events: 0 };
    s.req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `/v1/jobs/${jobId}/events`,
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`events answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const n = chunk.split('\nevent: job\n').length - 1;
          if (n > 0 && s.events === 0) resolve(s);
          s.events += n;
        });
      },
    );
    s.req.on('error', reject);
    s.req.end();
  });
}

export async function streamsScenario(ctx: BenchContext): Promise<StreamsResult> {
  const n = ctx.quick ? 200 : 1000;
  const ns = await BenchNamespace.create(ctx, 'bench-streams');
  await ns.installBenchCatalog();
  const key = await ns.account('streams');
  const r = ns.r;
  ctx.progress(`streams: writing ${n} jobs waiting on a paused variant`);
  const ids: string[] = [];
  const t0 = Date.now();
  await closedLoop(
    64,
    n,
    async (i) => {
      const name = randomUUID();
      await r.jobs.create({
        metadata: {
          name,
          labels: { 'genjobs.io/account': 'streams', 'genjobs.io/model': labelValue(PAUSED_MODEL) },
        },
        spec: {
          account: 'streams',
          model: PAUSED_MODEL,
          version: 'v1.0',
          input: { prompt: `waiting ${i}` },
          costMicroCents: 134000,
          requestId: randomUUID(),
        },
      });
      ids.push(name);
    },
    600,
  );
  const { proc: api, client } = await ns.startApi();
  const streams: OpenStream[] = [];
  try {
    await sleep(1000);
    const before = await api.memory();
    ctx.progress(`streams: opening ${n} event streams`);
    const url = new URL(api.url);
    for (let i = 0; i < n; i += 50) {
      streams.push(...(await Promise.all(ids.slice(i, i + 50).map((id) => openStream(url, key, id)))));
    }
    await sleep(1000);
    const after = await api.memory();

    // The oldest job leaves the queue: every other stream's position moves, so each gets an event.
    const order = (j: { metadata: { creationTimestamp?: string; name?: string } }) =>
      `${j.metadata.creationTimestamp ?? ''} ${j.metadata.name ?? ''}`;
    const first = (await r.jobs.list()).items.sort((a, b) => order(a).localeCompare(order(b)))[0]!;
    const seen = streams.map((s) => s.events);
    const t = Date.now();
    await r.jobs.delete(first.metadata.name ?? '');
    await waitFor(
      'every stream told of the move',
      async () => streams.filter((s, i) => s.events > seen[i]!).length >= n - 1,
      60_000,
      20,
    );
    const fanOutMs = Date.now() - t;
    ctx.progress(`streams: written in ${round((Date.now() - t0) / 1000, 1)} s`);
    return {
      streams: n,
      baseline: { rss: before.vmRss, heapUsed: before.heapUsed },
      open: { rss: after.vmRss, heapUsed: after.heapUsed },
      rssGrowthMB: round((after.vmRss - before.vmRss) / 2 ** 20, 1),
      heapGrowthMB: round((after.heapUsed - before.heapUsed) / 2 ** 20, 1),
      rssBytesPerStream: round((after.vmRss - before.vmRss) / n, 0),
      fanOutMs,
    };
  } finally {
    for (const s of streams) s.req.destroy();
    client.close();
    await api.stop();
  }
}
