import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobSink } from './blob-sink.ts';
import { WorkerError } from './errors.ts';
import { STORE_RETRY, storeFile } from './store.ts';
import { serve, type TestServer, tempDir, testContext } from './test-helpers.ts';

describe('storeFile', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  let server: TestServer | undefined;
  let file: string;
  beforeEach(async () => {
    root = await tempDir();
    file = join(root.dir, 'out.png');
    await writeFile(file, 'png bytes');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await root.cleanup();
  });

  /** A context whose sink PUTs to `url` over real HTTP, on a clock that the waits move. */
  function over(url: string) {
    let clock = 0;
    const waits: number[] = [];
    const warned: unknown[] = [];
    const { ctx } = testContext(
      root.dir,
      {},
      {
        sink: new BlobSink({
          jobId: 'j1',
          uploadUrl: `${url}/files`,
          publicUrl: 'http://files.test',
          grant: 'g',
        }),
        now: () => clock,
        sleep: async (ms) => {
          waits.push(ms);
          clock += ms;
        },
        log: { warn: (fields: unknown) => warned.push(fields) },
      },
    );
    return { ctx, waits, warned };
  }

  it('waits out a store that answers 503, then stores the file', async () => {
    let answered = 0;
    server = await serve((_req, res) => {
      answered++;
      res.writeHead(answered <= 2 ? 503 : 200).end();
    });
    const { ctx, waits, warned } = over(server.url);
    const url = await storeFile(ctx, 'output-0.png', file, 'image/png');
    expect(url).toMatch(/^http:\/\/files\.test\/jobs\/j1\/[0-9a-f]{32}\/output-0\.png$/);
    expect(server.requests.map((r) => r.body)).toEqual(['png bytes', 'png bytes', 'png bytes']);
    expect(waits).toEqual([1_000, 2_000]);
    expect(warned).toHaveLength(2);
  });

  it('fails at once on a refusal (403): waiting does not change it', async () => {
    server = await serve((_req, res) => res.writeHead(403).end('{"detail":"grant expired"}'));
    const { ctx, waits } = over(server.url);
    const failed = await storeFile(ctx, 'output-0.png', file, 'image/png').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkerError);
    expect(failed).toMatchObject({ code: 'OUTPUT_STORE_FAILED', message: 'storing output-0.png failed' });
    expect((failed as WorkerError).detail).toContain('HTTP 403');
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up when the store stays away past the budget, naming the cause and the tries', async () => {
    // A port nothing listens on: no answer at all (ECONNREFUSED).
    server = await serve((_req, res) => res.end());
    const gone = server.url;
    await server.close();
    server = undefined;
    const { ctx, waits } = over(gone);
    const failed = (await storeFile(ctx, 'output-0.mp4', file, 'video/mp4').catch(
      (e: unknown) => e,
    )) as WorkerError;
    expect(failed.code).toBe('OUTPUT_STORE_FAILED');
    expect(failed.detail).toMatch(/\(\d+ tries\).*ECONNREFUSED/);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(STORE_RETRY.budgetMs);
    expect(Math.max(...waits)).toBe(STORE_RETRY.maxMs);
  });

  it('stops waiting when the job is stopped', async () => {
    server = await serve((_req, res) => res.writeHead(503).end());
    const stop = new AbortController();
    const { ctx } = over(server.url);
    ctx.signal = stop.signal;
    ctx.sleep = async () => {
      stop.abort();
      throw new Error('aborted');
    };
    await expect(storeFile(ctx, 'output-0.png', file, 'image/png')).rejects.toThrow('aborted');
    expect(server.requests).toHaveLength(1);
  });
});
