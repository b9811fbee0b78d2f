import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HISTORY_HEADER } from '../../src/admin/history.ts';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { testDir } from '../support/temp.ts';
import { at, finishedJob } from './fixtures.ts';

const run = promisify(execFile);
let pg: LocalPostgres;

beforeAll(async () => {
  pg = await LocalPostgres.start();
  const archive = new Archive(postgresClient({ connectionString: pg.url }));
  await archive.upsertJobs([
    finishedJob('h1', { createdAt: at(1) }),
    finishedJob('h2', { createdAt: at(2), phase: 'failed' }),
    finishedJob('h3', { createdAt: at(3) }),
    finishedJob('elsewhere', { account: 'other' }),
  ]);
  await archive.close();
});
afterAll(() => pg?.stop());

const history = (...args: string[]) =>
  run(process.execPath, [join(REPO_ROOT, 'src', 'cli.ts'), 'history', '--archive-url', pg.url, ...args], {
    env: { ...process.env, GENJOBS_ARCHIVE: 'off' },
  });

it('genjobs history list pages an account newest first, and history get shows the whole resource', async () => {
  const first = await history('list', '--account', 'acme', '--limit', '2');
  expect(first.stdout).toMatch(/[^\n]\n$/); // ends its last line, as line-based tools expect
  const lines = first.stdout.trim().split('\n');
  expect(lines[0]).toBe(HISTORY_HEADER);
  // NAME, STATUS, COST, CHARGED: a failed job's cost was refunded, so it charged nothing.
  const cost = String(finishedJob('h3').spec.costMicroCents);
  expect(lines.slice(1, 3).map((l) => l.split('\t').filter((_, i) => i !== 2 && i < 5))).toEqual([
    ['h3', 'completed', cost, cost],
    ['h2', 'failed', cost, '0'],
  ]);
  // The next page's hint on stderr: stdout holds the table alone.
  expect(first.stdout).not.toContain('more:');
  const before = /^more: --before (\S+)$/m.exec(first.stderr)?.[1];
  expect(before).toBe(`${at(2)},h2`);
  const next = JSON.parse(
    (await history('list', '--account', 'acme', '--before', before!, '-o', 'json')).stdout,
  );
  expect(next.jobs.map((j: { metadata: { name: string } }) => j.metadata.name)).toEqual(['h1']);
  expect(next.nextBefore).toBeNull();
  // A page that is full with nothing after it says no more.
  const whole = await history('list', '--account', 'acme', '--limit', '3', '-o', 'json');
  expect(JSON.parse(whole.stdout)).toMatchObject({ nextBefore: null });
  expect(JSON.parse(whole.stdout).jobs).toHaveLength(3);
  expect((await history('list', '--account', 'acme', '--limit', '3')).stderr).not.toContain('more:');
  const last = await history('list', '--account', 'acme', '--before', before!);
  expect(last.stdout).toMatch(/^NAME\t[^\n]*\nh1\t[^\n]*\n$/);
  await expect(history('list', '--account', 'nobody')).resolves.toMatchObject({
    stdout: `${HISTORY_HEADER}\n`,
  });

  const got = JSON.parse((await history('get', 'h2')).stdout);
  // -o json, as every admin command takes it, prints the same.
  expect((await history('get', 'h2', '-o', 'json')).stdout).toBe(`${JSON.stringify(got, null, 2)}\n`);
  expect(got).toMatchObject({
    metadata: { name: 'h2' },
    status: { phase: 'failed', error: { code: 'GENERATION_FAILED' } },
  });
  await expect(history('get', 'nope')).rejects.toMatchObject({
    code: 1,
    stderr:
      'genjobs: job nope is not in the archive (a job still live is not archived yet: kubectl get gj nope)\n',
  });
});

it('a usage mistake is one line, without the usage text after it', async () => {
  for (const args of [['list'], ['list', '--account', 'acme', '--bogus']]) {
    const err = (await history(...args).catch((e: { code: number; stderr: string }) => e)) as {
      code: number;
      stderr: string;
    };
    expect([args.join(' '), err.code]).toEqual([args.join(' '), 2]);
    expect(err.stderr).toMatch(
      /^genjobs: (required option '--account <name>' not specified|unknown option '--bogus')\n$/,
    );
  }
});

it('a bad --limit, --before, --status or --output is refused as such, never blamed on the archive or ignored', async () => {
  const mistakes: Array<[string[], RegExp]> = [
    [['--limit', 'abc'], /--limit is a whole number from 1 to 1000: abc/],
    [['--limit', '-5'], /--limit is a whole number from 1 to 1000: -5/],
    [['--limit', '0'], /--limit is a whole number from 1 to 1000: 0/],
    [['--before', 'garbage'], /--before takes the created,name that a full page prints under it: garbage/],
    [['--before', 'MjAyNi0wMS0wMVQwMDowMDowMVo_aDE'], /--before takes the created,name/],
    [
      ['--status', 'pending'],
      /argument 'pending' is invalid. Allowed choices are completed, failed, cancelled/,
    ],
    [['-o', 'yaml'], /argument 'yaml' is invalid. Allowed choices are json/],
  ];
  for (const [args, message] of mistakes) {
    const err = (await history('list', '--account', 'acme', ...args).catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect([args.join(' '), err.code]).toEqual([args.join(' '), 2]);
    expect(err.stderr).toMatch(message);
    expect(err.stderr.trim().split('\n')).toHaveLength(1);
  }
});

it('GENJOBS_ARCHIVE_URL alone names the server, as --archive-url does', async () => {
  const { GENJOBS_ARCHIVE: _, ...env } = process.env;
  const { stdout } = await run(
    process.execPath,
    [join(REPO_ROOT, 'src', 'cli.ts'), 'history', 'list', '--account', 'acme', '--limit', '1'],
    { env: { ...env, GENJOBS_ARCHIVE_URL: pg.url } },
  );
  expect(stdout.split('\n')[1]).toMatch(/^h3\t/);
});

it('genjobs history without an archive, or with one it cannot reach, says so in one line', async () => {
  const cli = (...args: string[]) =>
    run(process.execPath, [join(REPO_ROOT, 'src', 'cli.ts'), 'history', ...args, 'list', '--account', 'a'], {
      env: { ...process.env, GENJOBS_ARCHIVE: 'off' },
    });
  await expect(cli()).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^genjobs: the archive is off here/),
  });
  // Nothing set (a developer's shell, dev mode's embedded archive): not told it was turned off.
  const { GENJOBS_ARCHIVE: _, GENJOBS_ARCHIVE_URL: __, ...unset } = process.env;
  await expect(
    run(process.execPath, [join(REPO_ROOT, 'src', 'cli.ts'), 'history', 'list', '--account', 'a'], {
      env: unset,
    }),
  ).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^genjobs: no archive is named here: .*no other can read it/),
  });
  const refused = cli('--archive-url', 'postgres://nobody@127.0.0.1:1/none');
  const err = (await refused.catch((e: { code: number; stderr: string }) => e)) as {
    code: number;
    stderr: string;
  };
  expect(err.code).toBe(2);
  expect(err.stderr).toMatch(/^genjobs: the job archive is unavailable: .*ECONNREFUSED/);
  expect(err.stderr.trim().split('\n')).toHaveLength(1);
});

it("genjobs history erase deletes an account's rows created before a time, and their files, where the blob store is", async () => {
  const archive = new Archive(postgresClient({ connectionString: pg.url }));
  await archive.upsertJobs([
    finishedJob('gone-1', { account: 'departed', createdAt: '2026-11-20T10:00:00Z' }),
    finishedJob('gone-2', { account: 'departed', createdAt: '2026-11-21T10:00:00Z' }),
    finishedJob('newer', { account: 'departed', createdAt: '2026-11-25T10:00:00Z' }),
  ]);
  const dir = await testDir('genjobs-erase-');
  for (const id of ['gone-1', 'gone-2', 'newer']) {
    await mkdir(join(dir, 'objects', 'jobs', id), { recursive: true });
    await writeFile(join(dir, 'objects', 'jobs', id, 'out.png'), 'x');
  }
  const blobEnv = { GENJOBS_BLOB_DIR: dir, GENJOBS_BLOB_SECRET: 'a'.repeat(32) };
  /** `genjobs history erase ARGS` with the blob store at `blobDir`. */
  const eraseWith = (blobDir: string, ...args: string[]) =>
    run(
      process.execPath,
      [join(REPO_ROOT, 'src', 'cli.ts'), 'history', '--archive-url', pg.url, 'erase', ...args],
      { env: { ...process.env, GENJOBS_ARCHIVE: 'off', ...blobEnv, GENJOBS_BLOB_DIR: blobDir } },
    );
  const erase = (...args: string[]) => eraseWith(dir, ...args);
  // A newer account of that name keeps its own: the time given is its creation.
  const out = await erase('--account', 'departed', '--created-before', '2026-11-25T00:00:00Z', '-o', 'json');
  expect(JSON.parse(out.stdout)).toMatchObject({
    rowsDeleted: 2,
    createdBefore: '2026-11-25T00:00:00Z',
    files: dir,
  });
  expect(await archive.getJob('gone-1')).toBeUndefined();
  expect(await archive.getJob('newer')).toBeDefined();
  expect(existsSync(join(dir, 'objects', 'jobs', 'gone-2'))).toBe(false);
  expect(existsSync(join(dir, 'objects', 'jobs', 'newer', 'out.png'))).toBe(true);

  // Refused, with nothing deleted: no time, a time it cannot read, a blob folder not here.
  await expect(erase('--account', 'departed')).rejects.toMatchObject({ code: 2 });
  await expect(erase('--account', 'departed', '--created-before', 'yesterday')).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/RFC 3339 time/),
  });
  const all = ['--account', 'departed', '--created-before', 'now'];
  const elsewhere = eraseWith(join(dir, 'nope'), ...all);
  await expect(elsewhere).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/is not a genjobs blob store here/),
  });
  // A folder that exists but is not a store (a wrong mount) is refused too: its rows would go, its files stay.
  const empty = await testDir('genjobs-not-a-store-');
  const wrong = eraseWith(empty, ...all);
  await expect(wrong).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/no objects\/ in it/) });
  expect(await archive.getJob('newer')).toBeDefined();
  // Another install (its own blob signing secret) sharing the database by mistake: the first
  // erase above claimed it for this one, so the other's erase deletes none of this one's rows.
  const other = run(
    process.execPath,
    [join(REPO_ROOT, 'src', 'cli.ts'), 'history', '--archive-url', pg.url, 'erase', ...all],
    {
      env: {
        ...process.env,
        GENJOBS_ARCHIVE: 'off',
        GENJOBS_BLOB_DIR: dir,
        GENJOBS_BLOB_SECRET: 'b'.repeat(32),
      },
    },
  );
  await expect(other).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/holds the job history of another genjobs install/),
  });
  expect(await archive.getJob('newer')).toBeDefined();
  await archive.close();
});
