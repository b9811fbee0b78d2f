import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loggerOptions, silentLogger } from '../log.ts';
import { workerMain } from './main.ts';
import { parseWorkerResult } from './result.ts';
import { DirectorySink } from './sink.ts';
import { serve, tempDir } from './test-helpers.ts';

describe('workerMain', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let sinks: DirectorySink[];
  beforeEach(async () => {
    root = await tempDir();
    sinks = [];
    env = { GENJOBS_TERMINATION_LOG: join(root.dir, 'termination-log'), GENJOBS_SCRATCH_DIR: root.dir };
  });
  afterEach(() => root.cleanup());

  const deps = () => ({
    log: silentLogger(),
    signal: new AbortController().signal,
    makeSink: (job: { jobId: string }) => {
      const sink = new DirectorySink(
        join(root.dir, 'blobs', job.jobId),
        `http://blob.test/jobs/${job.jobId}/`,
      );
      sinks.push(sink);
      return sink;
    },
  });
  const job = (overrides: Record<string, unknown> = {}) =>
    JSON.stringify({
      jobId: 'j-1',
      model: 'genjobs/reference/text-to-image',
      capability: 'text-to-image',
      version: '1',
      input: { prompt: 'a kite', aspect_ratio: '16:9' },
      runtime: { type: 'builtin', resources: { cpu: '1' } },
      ...overrides,
    });
  const reported = async () => parseWorkerResult(await readFile(env.GENJOBS_TERMINATION_LOG!, 'utf8'));

  it('runs the inline job, writes the result and exits 0, leaving no scratch behind', async () => {
    env.GENJOBS_JOB = job();
    expect(await workerMain(env, deps())).toBe(0);
    expect(await reported()).toEqual({
      ok: true,
      outputs: [{ type: 'image', url: 'http://blob.test/jobs/j-1/output-0.png' }],
    });
    expect((await readdir(root.dir)).sort()).toEqual(['blobs', 'termination-log']);
  });

  it('reads the job from GENJOBS_JOB_FILE and the upstream token from GENJOBS_RUNTIME_TOKEN', async () => {
    const server = await serve((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'failed', error: 'NSFW' })),
    );
    try {
      env.GENJOBS_JOB_FILE = join(root.dir, 'job.json');
      env.GENJOBS_RUNTIME_TOKEN = 'r8_token';
      await writeFile(env.GENJOBS_JOB_FILE, job({ runtime: { type: 'http', url: server.url } }));
      const lines: string[] = [];
      const log = pino(loggerOptions('worker', 'info'), { write: (line: string) => lines.push(line) });
      expect(await workerMain(env, { ...deps(), log })).toBe(1);
      // The failure's log line names the job, as every line after the job is read does.
      const failed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'job failed');
      expect(failed).toMatchObject({ jobId: 'j-1', model: 'genjobs/reference/text-to-image' });
      expect(await reported()).toEqual({
        ok: false,
        error: { code: 'GENERATION_FAILED', message: 'the model failed: NSFW' },
      });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer r8_token');
    } finally {
      await server.close();
    }
  });

  it.each([
    ['no job at all', {}, 'neither GENJOBS_JOB_FILE nor GENJOBS_JOB'],
    ['a job file that is missing', { GENJOBS_JOB_FILE: '/nonexistent/job.json' }, 'could not be read'],
    ['a job that is not JSON', { GENJOBS_JOB: '{' }, 'not JSON'],
    [
      'a job without runtime',
      { GENJOBS_JOB: '{"jobId":"j","model":"m","capability":"c","input":{}}' },
      'runtime',
    ],
    ['an http runtime without url', { GENJOBS_JOB: job({ runtime: { type: 'http' } }) }, 'runtime.url'],
  ])('reports %s as INVALID_JOB and exits 1', async (_name, extra, message) => {
    Object.assign(env, extra);
    expect(await workerMain(env, deps())).toBe(1);
    const result = await reported();
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_JOB' } });
    if (!result.ok) expect(result.error.message).toContain(message);
  });

  it('reports a sink that cannot be made as OUTPUT_STORE_FAILED', async () => {
    env.GENJOBS_JOB = job();
    const failing = { ...deps(), makeSink: () => Promise.reject(new Error('grant missing')) };
    expect(await workerMain(env, failing)).toBe(1);
    expect(await reported()).toMatchObject({ ok: false, error: { code: 'OUTPUT_STORE_FAILED' } });
  });

  it('exits 1 when the termination message cannot be written', async () => {
    env.GENJOBS_JOB = job();
    env.GENJOBS_TERMINATION_LOG = join(root.dir, 'no-such-dir', 'termination-log');
    expect(await workerMain(env, deps())).toBe(1);
  });
});
