import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJob } from './run.ts';
import { DirectorySink, type OutputSink } from './sink.ts';
import { serve, tempDir } from './test-helpers.ts';

describe('runJob', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  let sink: DirectorySink;
  beforeEach(async () => {
    root = await tempDir();
    sink = new DirectorySink(`${root.dir}/out`, 'http://outputs.test/j/');
  });
  afterEach(() => root.cleanup());

  const builtin = { type: 'builtin' as const };

  it('runs a builtin capability and reports its outputs', async () => {
    const result = await runJob({
      capability: 'text-to-image',
      runtime: builtin,
      input: { prompt: 'p' },
      scratchDir: root.dir,
      sink,
    });
    expect(result).toEqual({
      ok: true,
      outputs: [{ type: 'image', url: 'http://outputs.test/j/output-0.png' }],
    });
  });

  it.each([
    ['an unknown builtin capability', { capability: 'text-to-song' }, 'INVALID_JOB', 'text-to-song'],
    [
      'an input the runtime refuses',
      { input: { aspect_ratio: 'wide' } },
      'GENERATION_FAILED',
      'aspect_ratio',
    ],
    [
      'a missing ffmpeg',
      { capability: 'text-to-video', ffmpeg: '/nonexistent/ffmpeg' },
      'INTERNAL',
      'could not be started',
    ],
  ])('reports %s as %s', async (_name, overrides, code, message) => {
    const result = await runJob({
      capability: 'text-to-image',
      runtime: builtin,
      input: { prompt: 'p' },
      scratchDir: root.dir,
      sink,
      ...overrides,
    });
    expect(result).toMatchObject({ ok: false, error: { code } });
    if (!result.ok) expect(`${result.error.message} | ${result.error.detail ?? ''}`).toContain(message);
  });

  it('reports a sink that fails as OUTPUT_STORE_FAILED', async () => {
    const broken: OutputSink = { put: () => Promise.reject(new Error('403 grant expired')) };
    const result = await runJob({
      capability: 'text-to-image',
      runtime: builtin,
      input: {},
      scratchDir: root.dir,
      sink: broken,
    });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'OUTPUT_STORE_FAILED',
        message: 'storing output-0.png failed',
        detail: 'storing output-0.png failed: 403 grant expired',
      },
    });
  });

  it("stops at the runtime's timeoutSeconds with TIMEOUT", async () => {
    const started = Date.now();
    const result = await runJob({
      capability: 'text-to-video',
      runtime: { type: 'builtin', timeoutSeconds: 0.3 },
      input: { prompt: 'long', duration: 30, resolution: '4k' },
      scratchDir: root.dir,
      sink,
    });
    expect(result).toEqual({
      ok: false,
      error: { code: 'TIMEOUT', message: 'the job did not finish within 0.3 s' },
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports INTERRUPTED when told to stop', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const result = await runJob({
      capability: 'text-to-video',
      runtime: builtin,
      input: { prompt: 'long', duration: 30, resolution: '4k' },
      scratchDir: root.dir,
      sink,
      signal: stop.signal,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERRUPTED' } });
  });

  it('runs an http runtime with the token', async () => {
    const server = await serve((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'succeeded', output: 'hi' })),
    );
    try {
      const result = await runJob({
        capability: 'anything',
        runtime: { type: 'http', url: server.url },
        input: { prompt: 'p' },
        token: 'tok',
        scratchDir: root.dir,
        sink,
      });
      expect(result).toEqual({
        ok: true,
        outputs: [{ type: 'text', url: 'http://outputs.test/j/output-0.txt' }],
      });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer tok');
    } finally {
      await server.close();
    }
  });
});
