import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2e, startE2e } from '../support/e2e.ts';
import { decodeImage, probe } from '../support/media.ts';
import { testDir } from '../support/temp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const IMAGE = 'genjobs/reference-image/text-to-image';
const VIDEO = 'genjobs/reference-video/text-to-video';

let s: E2e;
let key: string;
let emptyDevDir: string;

beforeAll(async () => {
  s = await startE2e('cli', { slots: 2 });
  key = await s.account({ name: 'acme' });
  emptyDevDir = await mkdtemp(join(tmpdir(), 'genjobs-cli-dev-'));
});
afterAll(async () => {
  await s?.stop();
  if (emptyDevDir) await rm(emptyDevDir, { recursive: true, force: true });
});

/** Runs `genjobs …` as a process (stdout and stderr piped) against the stack. */
function genjobs(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          GENJOBS_URL: s.url,
          GENJOBS_API_KEY: key,
          GENJOBS_DEV_DIR: emptyDevDir,
          ...env,
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('genjobs run|jobs|models|upload as a process against the real service', () => {
  it('run --download leaves a playable MP4 and prints plain progress lines when piped', async () => {
    const dir = await testDir('genjobs-cli-');
    const r = await genjobs([
      'run',
      VIDEO,
      '--input',
      'prompt=a lighthouse',
      '--input',
      'duration=4',
      '--download',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).toMatch(/ completed /);
    const [file] = await readdir(dir);
    expect(file).toMatch(/^[0-9a-f-]{36}\.mp4$/);
    expect(r.stdout).toContain(`saved: ${join(dir, file!)}`);
    const media = await probe(join(dir, file!));
    expect(media.video?.codec).toBe('h264');
    expect(media.duration).toBeCloseTo(4, 0);
  });

  it('run without --wait prints the job id alone on stdout, for a script to capture', async () => {
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=a lighthouse']);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).toMatch(/^(pending|processing|completed)/);
    const got = await genjobs(['jobs', 'get', id, '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).jobId).toBe(id);
  });

  it('-o json prints only the final record', async () => {
    const dir = await testDir('genjobs-cli-');
    const r = await genjobs([
      'run',
      IMAGE,
      '-i',
      'prompt=a lighthouse',
      '-i',
      'seed:=7',
      '--download',
      dir,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const job = JSON.parse(r.stdout);
    expect(job).toMatchObject({ status: 'completed', model: IMAGE });
    expect((await decodeImage(join(dir, `${job.jobId}.png`))).format).toBe('png');
  });

  it('a failed job exits 1 and prints its error', async () => {
    const r = await genjobs([
      'run',
      'genjobs/reference-image/edit-image',
      '-i',
      'prompt=x',
      '-i',
      'image=http://127.0.0.1:1/none.png',
      '--wait',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/failed\nerror: GENERATION_FAILED/);
  });

  it('usage mistakes exit 2; a refused request 4; an unreachable service 5; a throttled one 6', async () => {
    expect((await genjobs(['run', IMAGE])).code).toBe(2);
    expect((await genjobs(['run', IMAGE, '--bogus'])).code).toBe(2);
    expect((await genjobs(['run', IMAGE, '-i', 'nokey'])).code).toBe(2);
    const refused = await genjobs(['run', IMAGE, '-i', 'prompt=x'], {
      GENJOBS_API_KEY: `gjk_${'a'.repeat(40)}`,
    });
    expect(refused.code).toBe(4);
    // Where the refused key (and the address it went to) came from: a dev dir's key sent to another instance shows.
    expect(refused.stderr).toMatch(
      /INVALID_API_KEY: .*\(request \S+\) \[the key is from GENJOBS_API_KEY; http\S+ is from GENJOBS_URL\]\n$/,
    );
    const down = await genjobs(['jobs', 'get', 'x'], { GENJOBS_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(5);
    // Throttled through every retry (a service that always answers 429): 6, not "unreachable".
    const throttling = createServer((_req, res) =>
      res
        .writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '0' })
        .end(JSON.stringify({ status: 429, code: 'RATE_LIMITED', retryable: true, detail: 'slow down' })),
    );
    await new Promise<void>((r) => throttling.listen(0, '127.0.0.1', r));
    try {
      const { port } = throttling.address() as AddressInfo;
      const throttled = await genjobs(['jobs', 'get', 'x'], { GENJOBS_URL: `http://127.0.0.1:${port}` });
      expect([throttled.code, throttled.stderr]).toEqual([6, expect.stringContaining('RATE_LIMITED')]);
    } finally {
      throttling.close();
    }
    // Says where the address came from and what to set.
    expect(down.stderr).toContain('http://127.0.0.1:1 is from GENJOBS_URL');
    const missing = await genjobs(['upload', '/nonexistent/in.png']);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      'genjobs: cannot read /nonexistent/in.png: no such file',
    ]);
    const badInput = await genjobs(['run', IMAGE, '--input-file', '/nonexistent/input.json']);
    expect(badInput.stderr).toContain('cannot read --input-file /nonexistent/input.json: no such file');
    const twice = await genjobs(['run', IMAGE, '-i', 'prompt=x', '-i', 'prompt=y']);
    expect([twice.code, twice.stderr.trim()]).toEqual([2, 'genjobs: --input prompt is given twice']);
  });

  it('jobs get|list|watch|cancel, models list|get and upload', async () => {
    const submitted = await genjobs(['run', IMAGE, '-i', 'prompt=to watch', '-o', 'json']);
    const { jobId } = JSON.parse(submitted.stdout);
    const watched = await genjobs(['jobs', 'watch', jobId]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(`${jobId} completed`);
    expect((await genjobs(['jobs', 'get', jobId])).stdout).toContain('status: completed');
    const list = JSON.parse((await genjobs(['jobs', 'list', '-o', 'json'])).stdout);
    expect(list.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    const cancel = await genjobs(['jobs', 'cancel', jobId]);
    expect(cancel.code).toBe(4);
    expect(cancel.stderr).toContain('JOB_CANNOT_BE_CANCELLED');
    const balance = (await genjobs(['balance'])).stdout;
    expect(balance).toMatch(
      /^account: \S+\nplan: pro\nmaxConcurrentJobs: 20\nbalanceMicroCents: \d+ \(\$[\d,]+\.\d{2,6}\)\n/,
    );
    expect((await genjobs(['jobs', 'get', jobId])).stdout).toMatch(/^costMicroCents: 134000 \(\$0\.134\)$/m);
    // A table row per job; none, no row and a word on stderr.
    expect((await genjobs(['jobs', 'list'])).stdout).toMatch(
      new RegExp(`^${jobId} {2}completed +\\S+ {2}${IMAGE}$`, 'm'),
    );
    const none = await genjobs(['jobs', 'list', '--model', 'genjobs/unused/text-to-image']);
    expect([none.code, none.stdout, none.stderr.trim()]).toEqual([0, '', 'no jobs']);
    const models = (await genjobs(['models', 'list'])).stdout;
    expect(models).toMatch(
      new RegExp(`${VIDEO} .* micro-cents per second of duration; 2400000 with the defaults`),
    );
    expect(models).toMatch(new RegExp(`${IMAGE} .* micro-cents per job\n`));
    // A price part by part, for any input, with nothing submitted.
    const ids = async () =>
      JSON.parse((await genjobs(['jobs', 'list', '-o', 'json'])).stdout).jobs.map(
        (j: { jobId: string }) => j.jobId,
      );
    const before = await ids();
    const estimate = await genjobs(['estimate', VIDEO, '-i', 'prompt=x', '-i', 'duration=4']);
    expect(estimate.code, estimate.stderr).toBe(0);
    const lines = estimate.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('1200000 micro-cents ($1.20)');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}base +800000$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}has_sound=true +400000$/));
    const silent = JSON.parse(
      (await genjobs(['estimate', VIDEO, '-i', 'prompt=x', '-i', 'has_sound:=false', '-o', 'json'])).stdout,
    );
    expect(silent.estimatedCostMicroCents).toBe(1_600_000);
    // No input: the model's defaults (8 s with sound), as the API prices them.
    const defaults = await genjobs(['estimate', VIDEO]);
    expect([defaults.code, defaults.stdout.split('\n')[0]]).toEqual([0, '2400000 micro-cents ($2.40)']);
    expect(await ids()).toEqual(before);
    const refused = await genjobs(['estimate', VIDEO, '-i', 'prompt=x', '-i', 'duration=5']);
    expect([refused.code, refused.stderr]).toEqual([4, expect.stringContaining('INVALID_INPUT')]);
    const ofModel = await genjobs(['models', 'get', 'genjobs/reference-image']);
    expect(ofModel.stdout).toContain('genjobs/reference-image is a model: this is its default variant');
    const model = await genjobs(['models', 'get', VIDEO]);
    expect(model.code, model.stderr).toBe(0);
    expect(model.stdout).toMatch(/^ {2}duration +one of 4, 6, 8 \(default 8\)/m);
    const unknown = await genjobs(['models', 'get', 'genjobs/no-such-model/text-to-image']);
    expect([unknown.code, unknown.stderr]).toEqual([4, expect.stringContaining('MODEL_NOT_FOUND')]);
    const png = join(await testDir('genjobs-cli-'), 'in.png');
    await writeFile(
      png,
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
        .png()
        .toBuffer(),
    );
    const up = await genjobs(['upload', png]);
    expect(up.code, up.stderr).toBe(0);
    expect((await fetch(up.stdout.trim())).status).toBe(200);
  });

  it('on a terminal, a live line redrawn in place with a progress bar', async () => {
    const cmd = [process.execPath, CLI, 'run', IMAGE, '-i', 'prompt=tty', '--wait']
      .map((a) => `'${a}'`)
      .join(' ');
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        'script',
        ['-q', '-e', '-c', cmd, '/dev/null'],
        {
          env: { ...process.env, GENJOBS_URL: s.url, GENJOBS_API_KEY: key, GENJOBS_DEV_DIR: emptyDevDir },
          timeout: 120_000,
        },
        (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, out: stdout }),
      ),
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('\r\x1b[2K');
    expect(r.out).toMatch(/completed .*\[#{20}\] 100%/);
    expect(r.out).toMatch(/elapsed \d+:\d\d/);
  });
});
