/**
 * The run's report: the JSON written to bench/results/ and the table printed on stdout,
 * ratios first (they hold from run to run on a shared machine; absolute numbers drift).
 */
import type { CpuProcess } from './harness/cpu.ts';
import type { Machine } from './harness/machine.ts';
import { ratio, round } from './harness/stats.ts';
import { isHousekeeping } from './harness/writes.ts';
import type { ApiScenarioResult, WriteLevel } from './scenarios/api.ts';
import type { ArchiveResult } from './scenarios/archive.ts';
import { type ArchiveE2eMode, describeMode } from './scenarios/archive-e2e.ts';
import type { CatalogResult } from './scenarios/catalog.ts';
import type { E2eResult } from './scenarios/e2e.ts';
import type { EtaResult } from './scenarios/eta.ts';
import type { MemoryResult } from './scenarios/memory.ts';
import type { PeerResult } from './scenarios/peer.ts';
import type { StreamsResult } from './scenarios/streams.ts';

export interface Target {
  id: string;
  description: string;
  value: number;
  unit: string;
  comparator: '>=' | '<=' | '<';
  target: number;
  /** null when the figure is missing (its scenario failed or did not run). */
  met: boolean | null;
}

export interface Report {
  mode: 'quick' | 'full';
  startedAt: string;
  durationSeconds: number;
  machine: Machine;
  scenarios: {
    api?: ApiScenarioResult;
    e2e?: E2eResult;
    peer?: PeerResult;
    catalog?: CatalogResult;
    memory?: MemoryResult;
    worker?: { cases: Array<{ name: string; seconds: number }> };
    archive?: ArchiveResult;
    streams?: StreamsResult;
    eta?: EtaResult;
    [id: string]: unknown;
  };
  errors: Array<{ scenario: string; message: string; stack?: string }>;
  targets: Target[];
}

function target(
  id: string,
  description: string,
  value: number | undefined,
  unit: string,
  comparator: Target['comparator'],
  goal: number,
): Target {
  const v = value ?? Number.NaN;
  const met = !Number.isFinite(v)
    ? null
    : comparator === '>='
      ? v >= goal
      : comparator === '<='
        ? v <= goal
        : v < goal;
  return { id, description, value: v, unit, comparator, target: goal, met };
}

const atC = (levels: WriteLevel[] | undefined, c: number) => levels?.find((l) => l.concurrency === c);

/**
 * What the CPU columns say of each submit level: the apiserver's and etcd's CPU per submit
 * against per raw create (a submit that costs one write costs them what a create does), and
 * the throughput ratio the machine allows when its cores are the limit (every process's CPU
 * per raw create ÷ per submit: the api's own work shares the cores with the apiserver).
 */
function submitCpuLines(api: ApiScenarioResult): string[] {
  const total = (l: WriteLevel) => l.cpu?.totalMsPerItem ?? Number.NaN;
  const store = (l: WriteLevel) =>
    (l.cpu?.msPerItem['kube-apiserver'] ?? Number.NaN) + (l.cpu?.msPerItem.etcd ?? Number.NaN);
  const lines = [
    ...api.submitSpread8.map((l) => ['8 accounts', l] as const),
    ...api.submitOneAccount.map((l) => ['1 account', l] as const),
  ]
    .filter(([, l]) => l.concurrency > 1)
    .map(([name, l]) => {
      const raw = atC(api.raw, l.concurrency);
      if (!raw?.cpu || !l.cpu) return undefined;
      return `  c=${l.concurrency}, ${name}: apiserver+etcd CPU per submit ÷ per raw create ${ratio(store(l), store(raw))}×; all processes' CPU per raw create ÷ per submit ${ratio(total(raw), total(l))}× (the CPU-bound throughput ratio)`;
    })
    .filter((x): x is string => x !== undefined);
  // The floor: a server that only makes the create. No api in front of the apiserver does
  // better on the same shared cores, so where the floor misses a target the machine does.
  for (const floor of api.forwarder ?? []) {
    const c = floor.concurrency;
    const vs = (l: WriteLevel | undefined) => ratio(l?.perSecond ?? Number.NaN, floor.perSecond);
    lines.push(
      `  c=${c}, the floor (one create per request, nothing else) ÷ raw create ${floor.throughputRatio}×, its CPU per request ${floor.cpu.msPerItem.forwarder} ms; submit ÷ the floor: 8 accounts ${vs(atC(api.submitSpread8, c))}×, 1 account ${vs(atC(api.submitOneAccount, c))}×`,
    );
  }
  return lines.length ? ['', ...lines] : [];
}

/** The issue's targets, each with the figure of this run. */
export function targets(r: Report): Target[] {
  const { api, e2e, peer, catalog, memory } = r.scenarios;
  const read64 = api?.reads.find((x) => x.concurrency === 64);
  return [
    // Issue 15: a submit costs one apiserver write (credit leases), at c=16 and c=64.
    ...[16, 64].flatMap((c) => [
      target(
        `submit-throughput-8-c${c}`,
        `submit ÷ raw create throughput, c=${c}, 8 accounts`,
        atC(api?.submitSpread8, c)?.throughputRatio,
        '×',
        '>=',
        0.9,
      ),
      target(
        `submit-p99-8-c${c}`,
        `submit p99 ÷ raw create p99, c=${c}, 8 accounts`,
        atC(api?.submitSpread8, c)?.p99Ratio,
        '×',
        '<=',
        1.5,
      ),
      target(
        `submit-throughput-1-c${c}`,
        `submit ÷ raw create throughput, c=${c}, 1 account`,
        atC(api?.submitOneAccount, c)?.throughputRatio,
        '×',
        '>=',
        0.9,
      ),
      target(
        `submit-p99-1-c${c}`,
        `submit p99 ÷ raw create p99, c=${c}, 1 account`,
        atC(api?.submitOneAccount, c)?.p99Ratio,
        '×',
        '<=',
        1.5,
      ),
    ]),
    target(
      'reads',
      'GET job through the api ÷ raw apiserver GET, c=64',
      read64?.throughputRatio,
      '×',
      '>=',
      5,
    ),
    target(
      'e2e-write-bound',
      'end-to-end jobs/s ÷ write-bound limit',
      e2e?.ratioToWriteBound,
      '×',
      '>=',
      0.7,
    ),
    target(
      'e2e-vs-job-controller',
      'end-to-end jobs/s ÷ Job controller items/s',
      peer?.genjobsRatio,
      '×',
      '>=',
      1.1,
    ),
    target(
      'apiserver-cpu-vs-job-controller',
      'kube-apiserver CPU per job ÷ per Job controller item',
      e2e && peer
        ? ratio(
            e2e.cpu.msPerItem['kube-apiserver'] ?? Number.NaN,
            peer.cpu.msPerItem['kube-apiserver'] ?? Number.NaN,
          )
        : undefined,
      '×',
      '<=',
      1,
    ),
    target(
      'service-cpu-vs-job-controller',
      'genjobs api + controller CPU per job ÷ kube-controller-manager per item',
      e2e && peer
        ? ratio(
            (e2e.cpu.msPerItem.api ?? Number.NaN) + (e2e.cpu.msPerItem.controller ?? Number.NaN),
            peer.cpu.msPerItem['kube-controller-manager'] ?? Number.NaN,
          )
        : undefined,
      '×',
      '<=',
      1,
    ),
    target(
      'writes-vs-job-controller',
      'writes per job ÷ Job controller writes per item',
      peer?.genjobsWritesRatio,
      '×',
      '<',
      1,
    ),
    target(
      'controller-heap',
      'controller heap per cached job',
      memory ? round(memory.controllerHeapBytesPerJob / 1024, 2) : undefined,
      'KiB',
      '<=',
      4,
    ),
    target(
      'catalog-p99-anonymous',
      'catalog list p99, 1,000 models, HTTP, anonymous',
      catalog?.http.anonymous.p99Ms,
      'ms',
      '<',
      5,
    ),
    target(
      'catalog-p99-key',
      'catalog list p99, 1,000 models, HTTP, with a key',
      catalog?.http.withKey.p99Ms,
      'ms',
      '<',
      5,
    ),
    target(
      'stream-memory',
      'api RSS growth for 1,000 open job event streams',
      r.scenarios.streams ? round((r.scenarios.streams.rssBytesPerStream * 1000) / 2 ** 20, 1) : undefined,
      'MB',
      '<=',
      50,
    ),
    target(
      'eta-p90-warm',
      'completion estimate p90 error at submit ÷ time left, variant with history',
      r.scenarios.eta?.atSubmit.warm.p90Share,
      '×',
      '<',
      0.25,
    ),
    ...archiveTargets(r.scenarios.archive),
  ];
}

/** Issue 14's targets: the history costs the live processes nothing, and reads of it are fast. */
function archiveTargets(a: ArchiveResult | undefined): Target[] {
  return [
    target('archive-api-rss', 'api RSS with the archive ÷ live jobs only', a?.apiRssRatio, '×', '<=', 1.15),
    target(
      'archive-controller-rss',
      'controller RSS with the archive ÷ live jobs only',
      a?.controllerRssRatio,
      '×',
      '<=',
      1.15,
    ),
    target(
      'archive-etcd-live-only',
      'GenerationJobs in etcd ÷ live jobs',
      a ? a.etcdJobs / a.liveJobs : undefined,
      '×',
      '<=',
      1,
    ),
    target('archive-get-p99', 'GET of an archived job p99, c=16', a?.getArchived.p99Ms, 'ms', '<=', 5),
    target(
      'archive-get-vs-live',
      'GET p99 of an archived job ÷ of a live one, c=16 (same run)',
      a?.getArchivedRatio,
      '×',
      '<=',
      2,
    ),
    target(
      'archive-list-p99',
      '50-job list page of archived jobs p99, c=16',
      a?.listPage.p99Ms,
      'ms',
      '<=',
      20,
    ),
    target(
      'archive-e2e-on-vs-off',
      'end-to-end jobs/s, archive on ÷ off with the same deletes (ttl), at steady state',
      a?.e2e.ratio,
      '×',
      '>=',
      0.95,
    ),
  ];
}

// --- the table ------------------------------------------------------------------------

type Cell = string | number | undefined;

function fmt(v: Cell): string {
  if (v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '-';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v) || Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** `off 27.9, ttl 26.5, on 26.3`: a figure of each mode present. */
function modesOf(by: Partial<Record<string, number>>): string {
  return Object.entries(by)
    .map(([mode, v]) => `${mode} ${fmt(v)}`)
    .join(', ');
}

function table(header: string[], rows: Cell[][]): string {
  const cells = [header, ...rows.map((r) => r.map(fmt))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)]
    .map((l) => `  ${l}`)
    .join('\n');
}

/** Rows of the CPU table, in this order. */
const CPU_ROWS: Record<CpuProcess, string> = {
  'kube-apiserver': 'kube-apiserver',
  etcd: 'etcd',
  api: 'genjobs api',
  controller: 'genjobs controller',
  forwarder: 'the floor (create only)',
  'kube-controller-manager': 'kube-controller-manager',
  'node agent': 'node agent and its containers',
  postgres: 'PostgreSQL (all its processes)',
  bench: 'bench (load and watch)',
};

const kib = (b: number) => round(b / 1024, 2);
const mib = (b: number) => round(b / 2 ** 20, 1);

export function printReport(r: Report): void {
  const out: string[] = [];
  const m = r.machine;
  out.push(
    '',
    `genjobs benchmark: ${r.mode} run, ${r.startedAt}, ${r.durationSeconds} s`,
    `code: ${m.source.commit}${m.source.uncommittedChanges ? ' with uncommitted changes in src/' : ''}`,
    `machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}, node ${m.node}, kubernetes ${m.kubernetes ?? '?'} (${m.controlPlaneAssets ?? '?'}), load average at start ${m.loadAverageAtStart.join(' ')}`,
    '',
    'TARGETS (ratios are measured side by side in this run)',
    table(
      ['', 'value', 'target', 'status'],
      r.targets.map((t) => [
        t.description,
        `${fmt(t.value)} ${t.unit}`,
        `${t.comparator} ${t.target} ${t.unit}`,
        t.met === null ? 'n/a' : t.met ? 'met' : 'MISSED',
      ]),
    ),
  );
  const { api, e2e, peer, catalog, memory, worker } = r.scenarios;
  if (api) {
    const rows = (name: string, levels: WriteLevel[]) =>
      levels.map((l) => [
        name,
        l.concurrency,
        l.count,
        l.perSecond,
        l.p50Ms,
        l.p99Ms,
        l.writesPerOp.total,
        l.throughputRatio,
        l.p99Ratio,
        l.cpu?.msPerItem['kube-apiserver'],
        l.cpu?.msPerItem.etcd,
        l.cpu?.msPerItem.api,
        l.cpu?.msPerItem.forwarder,
        l.cpu?.msPerItem.bench,
      ]);
    out.push(
      '',
      '1-2. CREATES: raw apiserver vs POST /v1/jobs/submit (paused variant, no controller)',
      table(
        [
          '',
          'c',
          'ops',
          'ops/s',
          'p50 ms',
          'p99 ms',
          'writes/op',
          '÷ raw ops/s',
          '÷ raw p99',
          'CPU ms/op: apiserver',
          'etcd',
          'api',
          'floor',
          'bench',
        ],
        [
          ...rows('raw create', api.raw),
          ...rows('submit, 8 accounts', api.submitSpread8),
          ...rows('submit, 1 account', api.submitOneAccount),
          ...rows('floor (create only)', api.forwarder ?? []),
        ],
      ),
      ...submitCpuLines(api),
      '',
      '3. READS: GET /v1/jobs/{id} through the api vs raw apiserver GET',
      table(
        ['', 'c', 'ops/s', 'p50 ms', 'p99 ms', 'api ÷ this'],
        api.reads.flatMap((x) => [
          ['api GET', x.concurrency, x.api.perSecond, x.api.p50Ms, x.api.p99Ms, undefined],
          ['raw GET', x.concurrency, x.raw.perSecond, x.raw.p50Ms, x.raw.p99Ms, x.throughputRatio],
        ]),
      ),
    );
  }
  if (e2e || peer) {
    out.push(
      '',
      '4 and 7. END TO END: genjobs (api, controller, node agent, no-op worker) vs batch/v1 Jobs (Job controller, same agent)',
      table(
        ['', 'items', 'items/s', 'p50 s to done', 'p99 s to done', 'writes/item', 'work writes/item'],
        [
          ...(e2e
            ? [
                [
                  'genjobs',
                  e2e.jobs,
                  e2e.jobsPerSecond,
                  e2e.submitToCompleted.p50Ms / 1000,
                  e2e.submitToCompleted.p99Ms / 1000,
                  e2e.writesPerJob.total,
                  e2e.workWritesPerJob,
                ],
              ]
            : []),
          ...(peer
            ? [
                [
                  'Job controller',
                  peer.items,
                  peer.itemsPerSecond,
                  peer.createToComplete.p50Ms / 1000,
                  peer.createToComplete.p99Ms / 1000,
                  peer.writesPerItem.total,
                  peer.workWritesPerItem,
                ],
              ]
            : []),
        ],
      ),
    );
    for (const note of [
      e2e?.incomplete && `genjobs: ${e2e.incomplete}`,
      peer?.incomplete && `Job controller: ${peer.incomplete}`,
    ]) {
      if (note) out.push(`  TIME BOX: ${note}`);
    }
    if (e2e) {
      out.push(
        `  genjobs: submit-to-processing p50 ${fmt(e2e.submitToProcessing.p50Ms)} ms, p99 ${fmt(e2e.submitToProcessing.p99Ms)} ms under the burst (${e2e.processingNotObserved} of ${e2e.jobs} finished before their processing phase was seen); idle service, one job at a time: submit-to-processing p50 ${fmt(e2e.idle.submitToProcessing.p50Ms)} ms, to completed p50 ${fmt(e2e.idle.submitToCompleted.p50Ms)} ms`,
        `  write-bound limit: ${fmt(api ? atC(api.raw, 64)?.perSecond : undefined)} raw creates/s ÷ ${fmt(e2e.workWritesPerJob)} writes/job = ${fmt(e2e.writeBoundJobsPerSecond)} jobs/s; genjobs reached ${fmt(e2e.ratioToWriteBound)} of it`,
      );
      if (peer)
        out.push(
          `  genjobs ÷ Job controller: ${fmt(peer.genjobsRatio)}× the items/s, ${fmt(peer.genjobsWritesRatio)}× the work writes per item`,
        );
      const resources = [
        ...new Set([
          ...Object.keys(e2e.writesPerJob.byResource),
          ...Object.keys(peer?.writesPerItem.byResource ?? {}),
        ]),
      ].sort();
      out.push(
        '',
        '  apiserver writes per item, by resource (housekeeping: node heartbeats, leases)',
        table(
          ['resource and verb', 'genjobs', 'Job controller'],
          resources.map((k) => [
            isHousekeeping(k) ? `${k} (housekeeping)` : k,
            e2e.writesPerJob.byResource[k] ?? 0,
            peer ? (peer.writesPerItem.byResource[k] ?? 0) : undefined,
          ]),
        ),
      );
      if (e2e.writes.conflicts > 0 || (peer?.writes.conflicts ?? 0) > 0) {
        out.push(
          `  refused with 409 Conflict: genjobs ${JSON.stringify(e2e.writes.conflictsByResource)}, Job controller ${JSON.stringify(peer?.writes.conflictsByResource ?? {})}`,
        );
      }
      if (e2e.writes.errors > 0 || (peer?.writes.errors ?? 0) > 0) {
        out.push(
          `  refused otherwise: genjobs ${JSON.stringify(e2e.writes.errorsByResource ?? {})}, Job controller ${JSON.stringify(peer?.writes.errorsByResource ?? {})}`,
        );
      }
    }
    const reads = [
      ...new Set([
        ...Object.keys(e2e?.readsPerJob.byResource ?? {}),
        ...Object.keys(peer?.readsPerItem.byResource ?? {}),
      ]),
    ].sort();
    const processes = (Object.keys(CPU_ROWS) as CpuProcess[]).filter(
      (p) => e2e?.cpu.msPerItem[p] !== undefined || peer?.cpu.msPerItem[p] !== undefined,
    );
    out.push(
      '',
      "  apiserver reads per item, by resource (successful; a WATCH counts when it ends; with the benchmark's own watch and polls)",
      table(
        ['resource and verb', 'genjobs', 'Job controller'],
        [
          ...reads.map((k) => [
            k,
            e2e ? (e2e.readsPerJob.byResource[k] ?? 0) : undefined,
            peer ? (peer.readsPerItem.byResource[k] ?? 0) : undefined,
          ]),
          ['total', e2e?.readsPerJob.total, peer?.readsPerItem.total],
        ],
      ),
      '',
      '  CPU per item, by process, from the first submit to the last completion (user + system, with waited-for children)',
      table(
        ['process', 'genjobs CPU ms/item', 'Job controller CPU ms/item'],
        [
          ...processes.map((p) => [CPU_ROWS[p], e2e?.cpu.msPerItem[p], peer?.cpu.msPerItem[p]]),
          ['total', e2e?.cpu.totalMsPerItem, peer?.cpu.totalMsPerItem],
        ],
      ),
    );
  }
  if (memory) {
    out.push(
      '',
      `5. MEMORY: after a full GC, with the jobs in both caches (${memory.finishedShare * 100}% finished; a cached job is ${fmt(memory.jsonBytesPerJob)} bytes of JSON)`,
      table(
        ['jobs', 'controller heap MiB', 'controller RSS MiB', 'api heap MiB', 'api RSS MiB'],
        memory.levels.map((l) => [
          l.jobs,
          mib(l.controller.heapUsed),
          mib(l.controller.rss),
          mib(l.api.heapUsed),
          mib(l.api.rss),
        ]),
      ),
      `  per added cached job: controller heap ${fmt(kib(memory.controllerHeapBytesPerJob))} KiB, RSS ${fmt(kib(memory.controllerRssBytesPerJob))} KiB; api heap ${fmt(kib(memory.apiHeapBytesPerJob))} KiB, RSS ${fmt(kib(memory.apiRssBytesPerJob))} KiB${memory.shortOf ? ` (${memory.shortOf})` : ''}`,
    );
  }
  if (catalog) {
    out.push(
      '',
      `6. CATALOG: GET /v1/catalog/models, ${catalog.models} models, ${fmt(kib(catalog.responseBytes))} KiB of JSON; to a client accepting gzip: ${fmt(kib(catalog.wireBytes))} KiB ${catalog.contentEncoding}`,
      table(
        ['', 'c', 'req/s', 'p50 ms', 'p99 ms'],
        [
          [
            'HTTP, anonymous',
            1,
            catalog.http.anonymous.perSecond,
            catalog.http.anonymous.p50Ms,
            catalog.http.anonymous.p99Ms,
          ],
          [
            'HTTP, with a key',
            1,
            catalog.http.withKey.perSecond,
            catalog.http.withKey.p50Ms,
            catalog.http.withKey.p99Ms,
          ],
          [
            'HTTP, with a key',
            16,
            catalog.http.withKeyC16.perSecond,
            catalog.http.withKeyC16.p50Ms,
            catalog.http.withKeyC16.p99Ms,
          ],
          [
            'HTTP floor: GET /healthz',
            1,
            catalog.httpFloor.perSecond,
            catalog.httpFloor.p50Ms,
            catalog.httpFloor.p99Ms,
          ],
          [
            'listCatalogModelsJson, anonymous',
            1,
            undefined,
            catalog.inProcess.anonymous.p50Ms,
            catalog.inProcess.anonymous.p99Ms,
          ],
          [
            'listCatalogModelsJson, discounted',
            1,
            undefined,
            catalog.inProcess.discounted.p50Ms,
            catalog.inProcess.discounted.p99Ms,
          ],
        ],
      ),
    );
  }
  if (worker) {
    out.push(
      '',
      '8. WORKER: builtin runtime, wall time',
      table(
        ['case', 'seconds'],
        worker.cases.map((c) => [c.name, c.seconds]),
      ),
    );
  }
  const eta = r.scenarios.eta;
  if (eta) {
    const row = (name: string, e: EtaResult['atSubmit']['all']) => [
      name,
      e.jobs,
      e.medianSeconds,
      e.p90Seconds,
      e.medianShare,
      e.p90Share,
    ];
    out.push(
      '',
      `10. ETA: ${eta.jobs} mixed jobs, ${eta.capacity} slot(s) per variant, ${eta.slots} on the node; |predicted − actual| completion`,
      table(
        ['estimate', 'jobs', 'median s', 'p90 s', 'median ÷ left', 'p90 ÷ left'],
        [
          row('at submit, all', eta.atSubmit.all),
          row('at submit, warm', eta.atSubmit.warm),
          row('halfway, all', eta.halfway.all),
          row('halfway, warm', eta.halfway.warm),
          ...Object.entries(eta.warmByModel).map(([model, m]) =>
            row(
              `at submit, warm, ${model.split('/')[2]} (mean signed ${m.meanSignedSecondsAtSubmit} s)`,
              m.atSubmit,
            ),
          ),
        ],
      ),
    );
  }
  const archive = r.scenarios.archive;
  if (archive) {
    out.push(
      '',
      `14. ARCHIVE: ${fmt(archive.archivedRows)} archived jobs in PostgreSQL, ${fmt(archive.liveJobs)} live; etcd holds ${fmt(archive.etcdJobs)} GenerationJobs`,
      `  rows/s: bulk load ${fmt(archive.bulkRowsPerSecond)} (then VACUUM ${fmt(archive.vacuumSeconds)} s), archiver upserts (batches of 200) ${fmt(archive.upsertRowsPerSecond)}; ${fmt(archive.bytesPerJob)} bytes per archived job (table and indexes)`,
      table(
        ['RSS MiB', 'live only', 'with archive', 'ratio'],
        [
          ['api', mib(archive.rss.liveOnly.api), mib(archive.rss.withArchive.api), archive.apiRssRatio],
          [
            'controller',
            mib(archive.rss.liveOnly.controller),
            mib(archive.rss.withArchive.controller),
            archive.controllerRssRatio,
          ],
        ],
      ),
      table(
        ['through the api', 'c', 'req/s', 'p50 ms', 'p99 ms'],
        [
          [
            'GET live job (baseline)',
            16,
            archive.getLive.perSecond,
            archive.getLive.p50Ms,
            archive.getLive.p99Ms,
          ],
          [
            'GET archived job',
            16,
            archive.getArchived.perSecond,
            archive.getArchived.p50Ms,
            archive.getArchived.p99Ms,
          ],
          ['list page of 50', 16, archive.listPage.perSecond, archive.listPage.p50Ms, archive.listPage.p99Ms],
        ],
      ),
      '',
      `  CPU ms per request, by process (user + system): the load, the api and PostgreSQL share the ${m.cpus} cores`,
      table(
        ['process', 'GET live', 'GET archived', 'list page of 50'],
        [
          ...(['api', 'postgres', 'bench'] as const).map((p) => [
            CPU_ROWS[p],
            archive.readCpu.getLive.msPerItem[p],
            archive.readCpu.getArchived.msPerItem[p],
            archive.readCpu.listPage.msPerItem[p],
          ]),
          [
            'total',
            archive.readCpu.getLive.totalMsPerItem,
            archive.readCpu.getArchived.totalMsPerItem,
            archive.readCpu.listPage.totalMsPerItem,
          ],
          [
            `req/s the ${m.cpus} cores allow (÷ total)`,
            ...[archive.readCpu.getLive, archive.readCpu.getArchived, archive.readCpu.listPage].map((c) =>
              round((m.cpus * 1000) / c.totalMsPerItem, 0),
            ),
          ],
        ],
      ),
      '',
      `  end to end (scenario 4's services and instant worker, 128 jobs in flight over 8 accounts, each client submitting its next job when its last completed), in turn: ${(Object.keys(archive.e2e.jobsPerSecond) as ArchiveE2eMode[]).map((m) => describeMode(m, archive.e2e.keepFinishedSeconds)).join('; ')}; ${
        archive.e2e.warmUpSeconds > 0
          ? `measured after a ${archive.e2e.warmUpSeconds} s warm-up, while submits, runs and deletes all go on`
          : 'measured from the first submit, no warm-up: a check that archiving keeps up, not a steady state'
      }`,
      `  jobs/s (median of each mode's runs): ${modesOf(archive.e2e.jobsPerSecond)}; on ÷ ttl (the same deletes: archiving itself) ${fmt(archive.e2e.ratio)}×, on ÷ off (with the delete off makes only after its TTL) ${fmt(archive.e2e.ratioKept)}×; rows archived per second within the window ${fmt(archive.e2e.archiveRowsPerSecond)}`,
      `  CPU ms per job, all processes (median): ${modesOf(archive.e2e.cpuMsPerJob)}; ttl ÷ on ${fmt(ratio(archive.e2e.cpuMsPerJob.ttl, archive.e2e.cpuMsPerJob.on))}×, off ÷ on ${fmt(ratio(archive.e2e.cpuMsPerJob.off, archive.e2e.cpuMsPerJob.on))}× (the jobs/s ratios on cores that are the bound, without the runs' drift)`,
      table(
        [
          'run',
          'jobs',
          'measured s',
          'jobs in it',
          'jobs/s',
          'deletes per job',
          'archived per job',
          'all gone after s',
        ],
        archive.e2e.runs.map((x, i) => [
          `${i + 1}: ${x.archive}`,
          x.jobs,
          x.seconds,
          x.completed,
          x.jobsPerSecond,
          x.deletesPerJob,
          x.archivedPerJob,
          x.drainSeconds,
        ]),
      ),
      '',
      '  CPU ms per job, by process, within the measured window',
      table(
        ['process', ...archive.e2e.runs.map((x, i) => `${i + 1}: ${x.archive}`)],
        [
          ...(Object.keys(CPU_ROWS) as CpuProcess[])
            .filter((p) => archive.e2e.runs.some((x) => x.cpu.msPerItem[p] !== undefined))
            .map((p) => [CPU_ROWS[p], ...archive.e2e.runs.map((x) => x.cpu.msPerItem[p])]),
          ['total', ...archive.e2e.runs.map((x) => x.cpu.totalMsPerItem)],
        ],
      ),
      '',
      "  apiserver requests per job, first submit until Pods were gone, leases closed and (ttl, on) every job deleted; reads include the bench's own polls",
      table(
        ['request', ...archive.e2e.runs.map((x, i) => `${i + 1}: ${x.archive}`)],
        [
          ...[...new Set(archive.e2e.runs.flatMap((x) => Object.keys(x.writesPerJob.byResource)))]
            .sort()
            .map((k) => [k, ...archive.e2e.runs.map((x) => x.writesPerJob.byResource[k] ?? 0)]),
          ['writes', ...archive.e2e.runs.map((x) => x.writesPerJob.total)],
          ['writes refused (409)', ...archive.e2e.runs.map((x) => x.conflictsPerJob)],
          ['reads', ...archive.e2e.runs.map((x) => x.readsPerJob.total)],
        ],
      ),
    );
  }
  if (r.errors.length > 0) {
    out.push('', 'FAILED SCENARIOS', ...r.errors.map((e) => `  ${e.scenario}: ${e.message}`));
  }
  console.log(out.join('\n'));
}
