// Fixtures shared by the worker's tests: real scratch directories, a real local HTTP
// server and ffprobe. Not used outside tests.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunContext } from './context.ts';
import { DirectorySink } from './sink.ts';

/** A fresh directory, removed by the returned cleanup. */
export async function tempDir(
  prefix = 'genjobs-worker-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

let runs = 0;

/**
 * A RunContext over real directories: each call gets its own scratch and output
 * directories under `root`, outputs served at http://outputs.test/job/.
 */
export function testContext(
  root: string,
  input: Record<string, unknown>,
  overrides: Partial<RunContext> = {},
) {
  const run = join(root, `run-${++runs}`);
  mkdirSync(run, { recursive: true });
  const sink = new DirectorySink(join(run, 'out'), 'http://outputs.test/job/');
  const ctx: RunContext = {
    input,
    scratchDir: run,
    sink,
    fetch,
    fetchInput: fetch,
    ownFile: () => false,
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    signal: new AbortController().signal,
    deadline: Number.POSITIVE_INFINITY,
    ffmpeg: 'ffmpeg',
    ...overrides,
  };
  return { ctx, sink };
}

/** The local file a DirectorySink URL points at. */
export function fileOf(sink: DirectorySink, url: string): string {
  const name = url.slice(sink.baseUrl.length);
  const stored = sink.stored.get(name);
  if (stored === undefined) throw new Error(`nothing stored at ${url}`);
  return stored.file;
}

export interface TestServer {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close: () => Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request and answers with `handler`. */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string, base: string) => unknown,
): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  let base = '';
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    await handler(req, res, body, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Probe {
  format: { duration: string; format_name: string };
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    duration?: string;
    color_space?: string;
    color_primaries?: string;
    color_transfer?: string;
  }[];
}

/** ffprobe's view of a media file. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await promisify(execFile)('ffprobe', [
    ...['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
  ]);
  return JSON.parse(stdout) as Probe;
}

/** The times (s) of a video's keyframes. */
export async function keyframeTimes(file: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v', '-skip_frame', 'nokey', '-show_entries', 'frame=pts_time'],
    ...['-of', 'csv=p=0', file],
  ]);
  return stdout
    .split('\n')
    .map((line) => Number.parseFloat(line))
    .filter(Number.isFinite);
}
