/**
 * Counting apiserver writes (and reads) from the apiserver's own metrics:
 * `apiserver_request_total` by verb, resource, subresource and code, read from
 * `GET /metrics` before and after a piece of work. Nothing is guessed: a write the service
 * did not mean to make shows up.
 */

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY']);
const READ_VERBS = new Set(['GET', 'LIST', 'WATCH']);

/** `resource[/subresource]` → verb → code → count. */
export type RequestCounts = Map<string, Map<string, Map<string, number>>>;

export interface WriteCounts {
  /** Successful (2xx) writes. */
  total: number;
  /** Successful writes by `resource[/subresource] VERB`, e.g. `generationjobs/status PUT`. */
  byResource: Record<string, number>;
  /** Writes refused with 409 Conflict (lost compare-and-swaps, creates of existing names). */
  conflicts: number;
  conflictsByResource: Record<string, number>;
  /** Other refused writes (4xx but 409, 5xx). */
  errors: number;
  /** By `resource[/subresource] VERB code`, e.g. `pods DELETE 404`: each still costs the apiserver a request. */
  errorsByResource: Record<string, number>;
}

export interface ReadCounts {
  /** Successful (2xx) reads. */
  total: number;
  /** By `resource[/subresource] VERB`, e.g. `pods LIST`. A WATCH is counted when it ends. */
  byResource: Record<string, number>;
}

export function parseRequestCounts(metrics: string): RequestCounts {
  const counts: RequestCounts = new Map();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const close = line.lastIndexOf('}');
    const labels = Object.fromEntries(
      [...line.slice(24, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    ) as Record<string, string>;
    const value = Number(line.slice(close + 1).trim());
    const key = labels.subresource ? `${labels.resource}/${labels.subresource}` : (labels.resource ?? '');
    const verb = labels.verb ?? '';
    const code = labels.code ?? '';
    const byVerb = counts.get(key) ?? new Map<string, Map<string, number>>();
    counts.set(key, byVerb);
    const byCode = byVerb.get(verb) ?? new Map<string, number>();
    byVerb.set(verb, byCode);
    byCode.set(code, (byCode.get(code) ?? 0) + value);
  }
  return counts;
}

const noWrites = (): WriteCounts => ({
  total: 0,
  byResource: {},
  conflicts: 0,
  conflictsByResource: {},
  errors: 0,
  errorsByResource: {},
});

export function writesBetween(before: RequestCounts, after: RequestCounts): WriteCounts {
  const result = noWrites();
  for (const [resource, byVerb] of after) {
    for (const [verb, byCode] of byVerb) {
      if (!WRITE_VERBS.has(verb)) continue;
      for (const [code, value] of byCode) {
        const delta = value - (before.get(resource)?.get(verb)?.get(code) ?? 0);
        if (delta <= 0) continue;
        const name = `${resource} ${verb}`;
        if (code.startsWith('2')) {
          result.total += delta;
          result.byResource[name] = (result.byResource[name] ?? 0) + delta;
        } else if (code === '409') {
          result.conflicts += delta;
          result.conflictsByResource[name] = (result.conflictsByResource[name] ?? 0) + delta;
        } else {
          result.errors += delta;
          result.errorsByResource[`${name} ${code}`] =
            (result.errorsByResource[`${name} ${code}`] ?? 0) + delta;
        }
      }
    }
  }
  result.byResource = sortedRecord(result.byResource);
  result.errorsByResource = sortedRecord(result.errorsByResource);
  return result;
}

export function readsBetween(before: RequestCounts, after: RequestCounts): ReadCounts {
  const result: ReadCounts = { total: 0, byResource: {} };
  for (const [resource, byVerb] of after) {
    for (const [verb, byCode] of byVerb) {
      if (!READ_VERBS.has(verb)) continue;
      for (const [code, value] of byCode) {
        const delta = value - (before.get(resource)?.get(verb)?.get(code) ?? 0);
        if (delta <= 0 || !code.startsWith('2')) continue;
        const name = `${resource} ${verb}`;
        result.total += delta;
        result.byResource[name] = (result.byResource[name] ?? 0) + delta;
      }
    }
  }
  result.byResource = sortedRecord(result.byResource);
  return result;
}

/** Writes (or reads) divided by a number of items (jobs, submits), per resource, rounded. */
export function perItem(
  w: { total: number; byResource: Record<string, number> },
  items: number,
): { total: number; byResource: Record<string, number> } {
  const r = (x: number) => Math.round((x / items) * 1000) / 1000;
  return {
    total: r(w.total),
    byResource: Object.fromEntries(Object.entries(w.byResource).map(([k, v]) => [k, r(v)])),
  };
}

/** The writes of several pieces of work, added up. */
export function sumWrites(parts: readonly WriteCounts[]): WriteCounts {
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  };
  const sum = noWrites();
  for (const w of parts) {
    sum.total += w.total;
    sum.conflicts += w.conflicts;
    sum.errors += w.errors;
    add(sum.byResource, w.byResource);
    add(sum.conflictsByResource, w.conflictsByResource);
    add(sum.errorsByResource, w.errorsByResource);
  }
  return sum;
}

/** Writes that are the node's or the control plane's own housekeeping, not the work measured. */
export function isHousekeeping(resourceVerb: string): boolean {
  return /^(leases|nodes\/status|nodes) /.test(resourceVerb);
}

/** Total successful writes without housekeeping (node heartbeats, leases). */
export function workWrites(w: WriteCounts): number {
  return Object.entries(w.byResource)
    .filter(([k]) => !isHousekeeping(k))
    .reduce((a, [, v]) => a + v, 0);
}

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Snapshots of the apiserver's request counters around a piece of work. */
export class WriteMeter {
  private readonly fetchMetrics: () => Promise<string>;

  constructor(fetchMetrics: () => Promise<string>) {
    this.fetchMetrics = fetchMetrics;
  }

  async snapshot(): Promise<RequestCounts> {
    return parseRequestCounts(await this.fetchMetrics());
  }

  /** Runs `work` and returns its result with the writes made meanwhile (by anyone). */
  async around<T>(work: () => Promise<T>): Promise<{ result: T; writes: WriteCounts }> {
    const before = await this.snapshot();
    const result = await work();
    return { result, writes: writesBetween(before, await this.snapshot()) };
  }
}
