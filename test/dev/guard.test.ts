import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Archive } from '../../src/archive/archive.ts';
import { ownerMark } from '../../src/archive/claim.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { pgliteClient } from '../../src/archive/pglite.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { lockDevDir } from '../../src/dev/guard.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-dev-guard-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `genjobs dev` as `npm run dev` starts it; refused before any control plane starts. */
const dev = (env: NodeJS.ProcessEnv) =>
  promisify(execFile)(process.execPath, [join(REPO_ROOT, 'src', 'cli.ts'), 'dev'], {
    env: { ...process.env, ...env },
    timeout: 45_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );

it('a second genjobs dev on one dev dir is refused in one line; a lock its holder left behind is taken over', async () => {
  const held = join(dir, 'held');
  await mkdir(held);
  // The first one, as far as its lock and its command line tell (`… cli.ts dev`).
  const first = spawn(process.execPath, [
    '-e',
    'setInterval(() => {}, 1000)',
    join(REPO_ROOT, 'src', 'cli.ts'),
    'dev',
  ]);
  try {
    await writeFile(join(held, 'dev.pid'), `${first.pid}\n`);
    const second = await dev({ GENJOBS_DEV_DIR: held, PORT: '0' });
    expect(second.code).toBe(2);
    expect(second.stderr.trim()).toBe(
      `genjobs: another genjobs dev (pid ${first.pid}) runs with GENJOBS_DEV_DIR=${held}: stop it, or give this one its own GENJOBS_DEV_DIR and PORT`,
    );
    expect(await readFile(join(held, 'dev.pid'), 'utf8')).toBe(`${first.pid}\n`);
  } finally {
    first.kill();
  }
  await once(first, 'exit');
  // A holder that is gone (killed, its machine restarted): its pid names no process now.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  await writeFile(join(held, 'dev.pid'), `${gone}\n`);
  const takenFrom: number[] = [];
  const again = await lockDevDir(held, (pid) => takenFrom.push(pid));
  expect(await readFile(join(held, 'dev.pid'), 'utf8')).toBe(`${process.pid}\n`);
  expect(takenFrom).toEqual([gone]);
  await again();
  // Its number given to another program since (after a reboot): pid 1 is no genjobs dev.
  await writeFile(join(held, 'dev.pid'), '1\n');
  const reused = await lockDevDir(held);
  expect(await readFile(join(held, 'dev.pid'), 'utf8')).toBe(`${process.pid}\n`);
  await reused();
});

it('a port in use is refused in one line, before a control plane is started', async () => {
  const busy = createServer().listen(0, '127.0.0.1');
  await once(busy, 'listening');
  try {
    const port = (busy.address() as AddressInfo).port;
    const started = Date.now();
    const refused = await dev({ GENJOBS_DEV_DIR: join(dir, 'port'), PORT: String(port) });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `genjobs: port ${port} on 127.0.0.1 is in use (another genjobs dev, or another program): PORT=<another port> npm run dev`,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    // Nothing of a control plane was made, and the dev dir is free for the next start.
    await expect(readFile(join(dir, 'port', 'dev.pid'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFile(join(dir, 'port', 'cluster', 'etcd.log'), 'utf8')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  } finally {
    busy.close();
  }
});

it('a dev dir the file system refuses is said in one line naming it, not a stack trace', async () => {
  // /sys refuses new entries, even to root (as a full or read-only disk refuses a write).
  const refused = await dev({ GENJOBS_DEV_DIR: '/sys/genjobs-dev-guard', PORT: '0' });
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim()).toMatch(/^genjobs: E[A-Z]+: [^\n]*'\/sys\/genjobs-dev-guard'$/);
});

it('an archive database another install claimed is refused in one line, the dev dir left free', async () => {
  const pg = await LocalPostgres.start();
  try {
    // Another install's claim, as its api's first archive use leaves it.
    const other = new Archive(postgresClient({ connectionString: pg.url }), {
      owner: { marks: [ownerMark('x'.repeat(40))], namespace: 'staging', api: 'http://127.0.0.1:9' },
    });
    await other.ready();
    await other.close();
    const devDir = join(dir, 'claimed');
    const refused = await dev({
      GENJOBS_DEV_DIR: devDir,
      PORT: '0',
      GENJOBS_ARCHIVE: 'postgres',
      GENJOBS_ARCHIVE_URL: pg.url,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^genjobs: the archive database holds the job history of another genjobs install \(namespace staging, api http:\/\/127\.0\.0\.1:9, claimed [^)]+\); give each install its own database\..* \(GENJOBS_ARCHIVE_URL\)$/,
    );
    await expect(readFile(join(devDir, 'dev.pid'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  } finally {
    await pg.stop();
  }
}, 60_000);

it('an embedded history made under another blob secret (a dev dir put back in part) is refused, naming both files', async () => {
  const devDir = join(dir, 'restored');
  await mkdir(devDir, { recursive: true });
  // The history as a dev instance with another blob-secret left it.
  const other = new Archive(await pgliteClient(join(devDir, 'archive')), {
    owner: { marks: [ownerMark('y'.repeat(64))], namespace: 'genjobs', api: 'http://127.0.0.1:9' },
  });
  await other.ready();
  await other.close();
  await writeFile(join(devDir, 'blob-secret'), 'z'.repeat(64), { mode: 0o600 });
  const refused = await dev({ GENJOBS_DEV_DIR: devDir, PORT: '0' });
  expect(refused.code).toBe(2);
  expect(refused.stderr.trim()).toBe(
    `genjobs: the job history in ${join(devDir, 'archive')} was made under another blob signing secret than ${join(devDir, 'blob-secret')}: put back the blob-secret of the same copy of the dev dir as the archive, or move the archive directory away to start a new history`,
  );
  await expect(readFile(join(devDir, 'dev.pid'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
}, 90_000);
