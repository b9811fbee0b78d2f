import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from './filesystem.ts';
import { BlobSigner } from './signing.ts';

let dir: string;
let store: FilesystemBlobStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-fs-store-'));
  store = new FilesystemBlobStore({
    dir,
    publicBaseUrl: 'http://127.0.0.1:8080/files',
    signer: new BlobSigner({ secrets: ['x'.repeat(32)], now: Date.now }),
    grantMaxSize: 1 << 20,
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the filesystem store', () => {
  it('leaves no temp file behind a write whose body fails', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
        this.destroy(new Error('the client went away'));
      },
    });
    await expect(store.putStream('uploads/a/b', failing, 'image/png')).rejects.toThrow();
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    expect(await store.stat('uploads/a/b')).toBeUndefined();
  });

  it("removes the temp files a crash left (untouched for the limit), not a write's in progress", async () => {
    // What a process killed in the middle of PUTs leaves: its temp data and metadata files.
    await mkdir(join(dir, 'tmp'), { recursive: true });
    const now = Date.now();
    const hourAgo = new Date(now - 61 * 60_000);
    for (const name of ['abandoned', 'abandoned.json']) {
      await writeFile(join(dir, 'tmp', name), 'partial');
      await utimes(join(dir, 'tmp', name), hourAgo, hourAgo);
    }
    await writeFile(join(dir, 'tmp', 'in-progress'), 'still being written');
    expect(await store.removeAbandonedWrites(60 * 60_000, now)).toBe(2);
    expect(await readdir(join(dir, 'tmp'))).toEqual(['in-progress']);
    // Nothing to do, or no tmp directory yet: no error.
    expect(await store.removeAbandonedWrites(60 * 60_000, now)).toBe(0);
    await rm(join(dir, 'tmp'), { recursive: true });
    expect(await store.removeAbandonedWrites(60 * 60_000, now)).toBe(0);
  });
});
