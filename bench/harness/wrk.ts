/**
 * A closed-loop HTTP load from wrk (Debian's `wrk`, C on epoll), for reads whose latency is
 * the figure: the bench's own Node loop spends ~0.1 ms of CPU a request on the cores the
 * service is measured on, and a response that lands while it handles others waits in its
 * socket, in the time it reports. wrk does the same requests at a fraction of that CPU.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type LoadResult, round } from './stats.ts';

/**
 * Each connection sends the next path of the list (in turn, from a shared counter) as soon
 * as its previous answer is read. Every answer must be 2xx: wrk counts the rest, and the
 * load fails if there is one, as {@link closedLoop} does. `done` prints the figures as one
 * JSON line (latencies in µs).
 */
const SCRIPT = `
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"status":%d,"p50":%d,"p99":%d,"mean":%.1f,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
`;

const run = promisify(execFile);

export interface WrkLoad {
  /** Base address, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Request paths, sent in turn. */
  paths: readonly string[];
  headers?: Record<string, string>;
  concurrency: number;
  seconds: number;
}

export async function wrkLoad(load: WrkLoad): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'genjobs-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    const paths = join(dir, 'paths');
    await writeFile(script, SCRIPT);
    await writeFile(paths, `${load.paths.join('\n')}\n`);
    const args = ['-t1', `-c${load.concurrency}`, `-d${load.seconds}s`, '--timeout', '10s', '-s', script];
    for (const [k, v] of Object.entries(load.headers ?? {})) args.push('-H', `${k}: ${v}`);
    args.push(load.url);
    const { stdout: out } = await run('wrk', args, { env: { ...process.env, WRK_PATHS: paths } }).catch(
      (err: NodeJS.ErrnoException & { stderr?: string }) => {
        if (err.code === 'ENOENT') throw new Error('wrk is not installed: `npm run setup` installs it');
        throw new Error(`wrk failed: ${err.stderr || err.message}`);
      },
    );
    const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (!line) throw new Error(`wrk printed no result: ${out}`);
    const r = JSON.parse(line.slice('WRK_RESULT '.length)) as {
      requests: number;
      durationUs: number;
      errors: number;
      status: number;
      p50: number;
      p99: number;
      mean: number;
      max: number;
    };
    if (r.errors + r.status > 0) {
      throw new Error(`${r.errors + r.status} of ${r.requests} requests failed (${r.status} not 2xx or 3xx)`);
    }
    const seconds = r.durationUs / 1e6;
    return {
      concurrency: load.concurrency,
      seconds: round(seconds, 3),
      perSecond: round(r.requests / seconds, 1),
      count: r.requests,
      p50Ms: round(r.p50 / 1000),
      p99Ms: round(r.p99 / 1000),
      meanMs: round(r.mean / 1000),
      maxMs: round(r.max / 1000),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
