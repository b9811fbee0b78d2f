/**
 * Scenario 6: `GET /v1/catalog/models` with a catalog of 1,000 models, through HTTP
 * (anonymous, which is served from a per-catalog string, and with an API key, which is
 * joined per request around the caller's price) and in-process (`listCatalogModelsJson`).
 */
import { buildCatalog } from '../../src/catalog/load.ts';
import { listCatalogModelsJson } from '../../src/catalog/views.ts';
import { generatedCatalog } from '../harness/catalogs.ts';
import { type BenchContext, BenchNamespace } from '../harness/context.ts';
import { closedLoop, type Latency, type LoadResult, latency, sleep } from '../harness/stats.ts';

export interface CatalogResult {
  models: number;
  /** The JSON answer's size, and what went over the wire to a client that accepts gzip. */
  responseBytes: number;
  wireBytes: number;
  contentEncoding: string;
  http: { anonymous: LoadResult; withKey: LoadResult; withKeyC16: LoadResult };
  /** GET /healthz the same way: the floor of HTTP on this machine, catalog aside. */
  httpFloor: LoadResult;
  inProcess: { anonymous: Latency; discounted: Latency };
}

export const CATALOG_MODELS = 1000;

export async function catalogScenario(ctx: BenchContext): Promise<CatalogResult> {
  const requests = ctx.quick ? 300 : 3000;
  const { configMaps, documents } = generatedCatalog(CATALOG_MODELS);
  const ns = await BenchNamespace.create(ctx, 'bench-catalog');
  await ns.installCatalog(configMaps);
  const key = await ns.account('catalog');
  const { proc, client } = await ns.startApi();
  try {
    let bytes = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await client.call('GET', '/v1/catalog/models');
      if (res.status === 200 && (JSON.parse(res.body) as unknown[]).length === CATALOG_MODELS) {
        bytes = Buffer.byteLength(res.body);
        break;
      }
      if (Date.now() > deadline)
        throw new Error(`the api does not list ${CATALOG_MODELS} models: ${res.status}`);
      await sleep(200);
    }
    // As a client that accepts gzip (browsers, fetch, curl --compressed): the api may
    // compress; the body is received whole but not decoded or parsed, so the figure is the
    // service's and the transfer's, not this client's JSON parsing.
    let received = 0;
    let encoding = 'identity';
    const get = (withKey: boolean) => async () => {
      const res = await client.call('GET', '/v1/catalog/models', {
        ...(withKey ? { key } : {}),
        headers: { 'accept-encoding': 'gzip' },
      });
      received = res.bytes;
      encoding = String(res.headers['content-encoding'] ?? 'identity');
      if (res.status !== 200)
        throw new Error(`GET /v1/catalog/models: ${res.status} ${res.body.slice(0, 200)}`);
    };
    ctx.progress(`catalog: ${requests} GETs of ${CATALOG_MODELS} models, anonymous and with a key`);
    // Each is warmed up with as many requests as are timed (the JIT; the first request for
    // a key builds and gzips its body): with 100 anonymous ones and none with a key, the
    // key's p99 at c=1 was 7.4 ms against a p50 of 0.32 ms.
    const timed = async (concurrency: number, op: () => Promise<void>) => {
      await closedLoop(concurrency, requests, op);
      return closedLoop(concurrency, requests, op, 30);
    };
    const anonymous = await timed(1, get(false));
    const withKey = await timed(1, get(true));
    const withKeyC16 = await timed(16, get(true));
    const httpFloor = await timed(1, async () => {
      const res = await client.call('GET', '/healthz');
      if (res.status !== 200) throw new Error(`GET /healthz: ${res.status}`);
    });

    const built = buildCatalog([{ name: 'generated', documents }]);
    if (!built.ok) throw new Error(`generated catalog invalid: ${built.errors[0]?.message}`);
    const account = { spec: { discount: { type: 'account', percentage: 10 } } };
    const time = (fn: () => string) => {
      const samples: number[] = [];
      for (let i = 0; i < requests; i++) {
        const t = performance.now();
        fn();
        samples.push(performance.now() - t);
      }
      return latency(samples);
    };
    time(() => listCatalogModelsJson(built.catalog, account));
    return {
      models: CATALOG_MODELS,
      responseBytes: bytes,
      wireBytes: received,
      contentEncoding: encoding,
      http: { anonymous, withKey, withKeyC16 },
      httpFloor,
      inProcess: {
        anonymous: time(() => listCatalogModelsJson(built.catalog)),
        discounted: time(() => listCatalogModelsJson(built.catalog, account)),
      },
    };
  } finally {
    client.close();
    await proc.stop();
  }
}
