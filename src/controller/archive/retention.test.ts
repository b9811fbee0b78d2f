import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Archive } from '../../archive/archive.ts';
import { pgliteClient } from '../../archive/pglite.ts';
import { FilesystemBlobStore } from '../../blob/filesystem.ts';
import { jobOutputKey } from '../../blob/keys.ts';
import { BlobSigner } from '../../blob/signing.ts';
import { API_VERSION, type GenerationJob } from '../../k8s/types.ts';
import { createMetrics } from '../../metrics.ts';
import { Retention } from './retention.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-23T12:00:00Z');

const job = (id: string, ageDays: number): GenerationJob => ({
  apiVersion: API_VERSION,
  kind: 'GenerationJob',
  metadata: { name: id, creationTimestamp: new Date(NOW - ageDays * DAY - 60_000).toISOString() },
  spec: { account: 'a', model: 'm', version: 'v', input: {}, costMicroCents: 1 },
  status: { phase: 'completed', completedAt: new Date(NOW - ageDays * DAY).toISOString() },
});

describe('retention', () => {
  let dir: string;
  let archive: Archive;
  let blob: FilesystemBlobStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genjobs-retention-'));
    archive = new Archive(await pgliteClient());
    blob = new FilesystemBlobStore({
      dir,
      publicBaseUrl: 'http://x/files',
      signer: new BlobSigner({ secrets: ['s'.repeat(32)], now: () => NOW }),
      grantMaxSize: 1_000_000,
    });
    // PGlite compiles its WebAssembly on start: seconds on a loaded machine.
  }, 60_000);
  afterAll(async () => {
    await archive?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes jobs past retention with their files, a bounded batch per pass, and keeps the rest', async () => {
    const ids = ['old-1', 'old-2', 'old-3', 'young'];
    await archive.upsertJobs([job('old-1', 40), job('old-2', 35), job('old-3', 31), job('young', 29)]);
    for (const id of ids)
      await blob.putStream(jobOutputKey(id, 'output-0.png'), Readable.from(['png']), 'image/png');
    const file = (id: string) => join(blob.objectsDir, jobOutputKey(id, 'output-0.png'));
    const metrics = createMetrics(undefined, { processMetrics: false });
    const retention = new Retention({
      archive,
      blob,
      metrics,
      now: () => NOW,
      retentionMs: 30 * DAY,
      batch: 2,
    });

    // A full batch: the next pass comes soon.
    expect((await retention.pass()).requeueAfterMs).toBeLessThan(1_000);
    expect(existsSync(file('old-1'))).toBe(false);
    expect(existsSync(file('old-3'))).toBe(true);
    expect(await archive.getJob('old-1')).toBeUndefined();
    // The rest of the backlog, then idle.
    expect((await retention.pass()).requeueAfterMs).toBeGreaterThan(60_000);
    expect(existsSync(file('old-3'))).toBe(false);
    expect(await archive.getJob('old-3')).toBeUndefined();
    expect(existsSync(file('young'))).toBe(true);
    expect(await archive.getJob('young')).toBeDefined();
    expect(await metrics.retentionDeleted.get()).toMatchObject({
      values: [{ value: 3, labels: { kind: 'job' } }],
    });
  });
});
