import { type ChildProcess, execFile } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testDir } from '../../test/support/temp.ts';

const CLI = new URL('../cli.ts', import.meta.url).pathname;

/**
 * A stand-in for the api (the user commands' side of it) that the real service cannot play:
 * a proxy's page, a stream that never ends, a job id chosen in advance. Answers each request
 * with `handle`; records `METHOD path` of each.
 */
async function fakeApi(handle: (req: IncomingMessage, res: ServerResponse, url: string) => void) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handle(req, res, url);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { url, seen };
}
const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const json = (res: ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const aJob = (o: Record<string, unknown> = {}) => ({
  jobId: 'job-1',
  status: 'pending',
  model: 'genjobs/reference-image/text-to-image',
  createdAt: '2026-01-01T00:00:00Z',
  ...o,
});

/** Runs `genjobs …` as a process; `started` gets the child, to signal it. */
function genjobs(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  started?: (child: ChildProcess) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          GENJOBS_API_KEY: 'gjk_test',
          GENJOBS_DEV_DIR: '/nonexistent/genjobs-dev',
          GENJOBS_DEBUG: '',
          ...env,
        },
        timeout: 30_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    started?.(child);
  });
}

/** Every failure is one line on stderr, never a Node stack trace. */
function oneLine(stderr: string): string {
  expect(stderr).not.toMatch(/^\s+at /m);
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

const IMAGE = 'genjobs/reference-image/text-to-image';

describe('genjobs user commands: failures are one line and a documented exit code', () => {
  it.each([
    [
      ['--status', 'bogus'],
      /--status.*bogus.*Allowed choices are pending, processing, completed, failed, cancelled/,
    ],
    [['--limit', '0'], /--limit.*0.*a whole number from 1 to 100/],
    [['--limit', '101'], /a whole number from 1 to 100/],
    [['--limit', '1e1'], /a whole number from 1 to 100/],
  ])('jobs list %j is a command-line mistake (exit 2), never sent', async (args, message) => {
    const api = await fakeApi((_req, res) => json(res, { jobs: [], nextCursor: null }));
    const r = await genjobs(['jobs', 'list', ...args], { GENJOBS_URL: api.url });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(message);
    expect(r.stderr).toMatch(/^genjobs: /);
    expect(api.seen).toEqual([]);
  });

  it('run --prompt x: an unknown option says how an input field is given, and nothing is sent', async () => {
    const api = await fakeApi((_req, res) => json(res, aJob()));
    const r = await genjobs(['run', IMAGE, '--prompt', 'a lighthouse'], { GENJOBS_URL: api.url });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      "genjobs: unknown option '--prompt' (a model's input field is given as --input prompt=VALUE; genjobs models get MODEL lists them)",
    );
    const other = await genjobs(['jobs', 'list', '--prompt', 'x'], { GENJOBS_URL: api.url });
    expect(oneLine(other.stderr)).toBe("genjobs: unknown option '--prompt'");
    expect(api.seen).toEqual([]);
  });

  it('a list given as a string (image_urls=URL) is refused with how to give a list', async () => {
    const api = await fakeApi((_req, res) =>
      json(
        res,
        {
          code: 'INVALID_INPUT',
          detail: "input does not match the model's inputSchema: /input/image_urls must be array",
          requestId: 'r-1',
          retryable: false,
          errors: [
            { pointer: '/input/image_urls', message: 'must be array' },
            { pointer: '/input/seed', message: 'must be integer' },
            { pointer: '/input/options', message: 'must be object' },
          ],
        },
        422,
      ),
    );
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=x', '-i', 'image_urls=https://f/x.png'], {
      GENJOBS_URL: api.url,
    });
    expect(r.code).toBe(4);
    expect(oneLine(r.stderr)).toBe(
      "genjobs: INVALID_INPUT: input does not match the model's inputSchema: /input/image_urls must be array (request r-1) [a list or object is given as JSON: --input image_urls:='[…]', --input options:='{…}']",
    );
  });

  it('a --download folder that cannot be made is a usage error, before anything is submitted', async () => {
    const api = await fakeApi((_req, res) => json(res, aJob()));
    const dir = await testDir('genjobs-cli-');
    const file = join(dir, 'a-file');
    await writeFile(file, 'in the way');
    for (const target of [file, join(file, 'sub')]) {
      const r = await genjobs(['run', IMAGE, '-i', 'prompt=x', '--download', target, '-o', 'json'], {
        GENJOBS_URL: api.url,
      });
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toBe(`genjobs: cannot save into --download ${target}: a file is in the way`);
      expect(r.stdout).toBe('');
    }
    const watched = await genjobs(['jobs', 'watch', 'job-1', '--download', file], { GENJOBS_URL: api.url });
    expect(watched.code).toBe(2);
    expect(api.seen).toEqual([]);
  });

  it('outputs that cannot be saved after the job completed: the record is printed, exit 7', async () => {
    const api = await fakeApi((req, res, url) => {
      const done = aJob({ status: 'completed', outputs: [{ url: `${url}/files/out.png` }] });
      if (req.url === '/v1/jobs/submit') json(res, aJob());
      else if (req.url === '/v1/jobs/job-1/events')
        res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(`id: 1\nevent: job\ndata: ${JSON.stringify(done)}\n\n`);
      else res.writeHead(200, { 'content-type': 'image/png' }).end('png bytes');
    });
    const dir = await testDir('genjobs-cli-');
    await mkdir(join(dir, 'job-1.png')); // a folder where the output file goes
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=x', '--download', dir, '-o', 'json'], {
      GENJOBS_URL: api.url,
    });
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ jobId: 'job-1', status: 'completed' });
    expect(oneLine(r.stderr)).toBe(
      `genjobs: the job completed but its outputs could not be saved: cannot write ${join(dir, 'job-1.png')}: it is a directory`,
    );
    expect(api.seen.filter((s) => s.startsWith('POST'))).toEqual(['POST /v1/jobs/submit']);
  });

  it('a GENJOBS_URL that is not an address is a usage error naming it', async () => {
    const r = await genjobs(['balance'], { GENJOBS_URL: 'not-a-url' });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      'genjobs: GENJOBS_URL holds "not-a-url", which is not an http:// or https:// address',
    );
  });

  it('a 200 that is not JSON (a proxy login page) exits 5, as a 502 page does', async () => {
    const api = await fakeApi((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in to the proxy</html>'),
    );
    const r = await genjobs(['balance'], { GENJOBS_URL: api.url });
    expect(r.code).toBe(5);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).toContain('genjobs: INVALID_RESPONSE: ');
    expect(r.stderr).toContain('<html>Sign in to the proxy</html>');
    expect(r.stderr).toContain(`${api.url} is from GENJOBS_URL`);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an error answer without a service code (another server at that address) exits 5 and names where the address came from', async () => {
    // What the controller's health port answers to GET /v1/account.
    const api = await fakeApi((_req, res) => json(res, { status: 'not found' }, 404));
    const r = await genjobs(['balance'], { GENJOBS_URL: api.url });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('genjobs: HTTP_404: {"status":"not found"}');
    expect(r.stderr).toContain(
      `not an answer of the genjobs api (its errors have a code); ${api.url} is from GENJOBS_URL]`,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an empty, . or .. job id is a usage error; nothing is asked', async () => {
    const api = await fakeApi((_req, res) => json(res, { jobs: [] }));
    for (const args of [
      ['jobs', 'get', ''],
      ['jobs', 'get', '.'],
      ['jobs', 'cancel', ''],
      ['jobs', 'cancel', '..'],
      ['jobs', 'watch', ''],
    ]) {
      const r = await genjobs(args, { GENJOBS_URL: api.url });
      expect([args, r.code]).toEqual([args, 2]);
      expect(oneLine(r.stderr)).toMatch(/^genjobs: ".{0,2}" is not a job id$/);
    }
    expect(api.seen).toEqual([]);
  });

  it('an empty --idempotency-key is refused, not replaced by a random one', async () => {
    const api = await fakeApi((_req, res) => json(res, aJob()));
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=x', '--idempotency-key', ''], {
      GENJOBS_URL: api.url,
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^genjobs: --idempotency-key is empty/);
    expect(api.seen).toEqual([]);
  });

  it("a submit whose outcome is unknown (a proxy's 504) names the key to run it again with; a refusal does not", async () => {
    const keys: string[] = [];
    const gateway = await fakeApi((req, res) => {
      keys.push(String(req.headers['idempotency-key']));
      res
        .writeHead(504, { 'content-type': 'text/html', 'retry-after': '0' })
        .end('<html><head><title>504 Gateway Time-out</title></head><body>nginx</body></html>');
    });
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=x'], { GENJOBS_URL: gateway.url });
    expect(r.code).toBe(5);
    expect(keys.length).toBeGreaterThan(1);
    expect(new Set(keys).size).toBe(1); // every retry with the one key
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^genjobs: HTTP_504: 504 Gateway Time-out \[/);
    expect(lines[1]).toBe(
      `genjobs: the job may have been made all the same; run the same command with --idempotency-key ${keys[0]} to get it (no second job or charge), or look with genjobs jobs list`,
    );
    // A connection refused sent nothing: no job can have been made, and no word of one.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const nobody = await genjobs(['run', IMAGE, '-i', 'prompt=x'], {
      GENJOBS_URL: `http://127.0.0.1:${port}`,
    });
    expect(nobody.code).toBe(5);
    expect(nobody.stderr).toContain('ECONNREFUSED');
    expect(nobody.stderr).not.toContain('may have been made');
    const refusing = await fakeApi((_req, res) =>
      json(res, { code: 'INSUFFICIENT_BALANCE', detail: 'the balance is too low', retryable: false }, 402),
    );
    const refused = await genjobs(['run', IMAGE, '-i', 'prompt=x'], { GENJOBS_URL: refusing.url });
    expect(refused.code).toBe(4);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'genjobs: INSUFFICIENT_BALANCE: the balance is too low',
    ]);
  });

  it('an --input-file holding {} says the input is empty', async () => {
    const file = join(await testDir('genjobs-cli-'), 'input.json');
    await writeFile(file, '{}');
    const r = await genjobs(['run', IMAGE, '--input-file', file], { GENJOBS_URL: 'http://127.0.0.1:9' });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(`genjobs: the job input is empty: --input-file ${file} holds no fields`);
  });

  it('an unexpected error is one line and exit 8, never a stack trace and 1', async () => {
    const api = await fakeApi((_req, res) => json(res, null)); // a submit answered with null
    const r = await genjobs(['run', IMAGE, '-i', 'prompt=x', '--wait'], { GENJOBS_URL: api.url });
    expect(r.code).toBe(8);
    expect(oneLine(r.stderr)).toMatch(/^genjobs: /);
  });

  it('jobs list prints its rows alone on stdout; the next page hint goes to stderr', async () => {
    const api = await fakeApi((_req, res) => json(res, { jobs: [aJob()], nextCursor: 'c2' }));
    const r = await genjobs(['jobs', 'list'], { GENJOBS_URL: api.url });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^job-1 {2}pending/)]);
    expect(r.stderr.trim()).toBe('more: --cursor c2');
  });

  it('run --help lists every exit code', async () => {
    const r = await genjobs(['run', '--help']);
    expect(r.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143])
      expect(r.stdout).toMatch(new RegExp(`^ {2}${code} +\\S`, 'm'));
  });
});

describe('a signal while waiting stops the waiting, not the job', () => {
  /** An api whose job stays pending: its event stream sends one record and holds on. */
  async function pendingJob() {
    let streaming: () => void = () => {};
    const streamed = new Promise<void>((r) => {
      streaming = r;
    });
    const api = await fakeApi((req, res) => {
      if (req.url === '/v1/jobs/submit') return json(res, aJob({ jobId: 'job-7' }));
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .write(`id: 1\nevent: job\ndata: ${JSON.stringify(aJob({ jobId: 'job-7' }))}\n\n`);
      streaming();
    });
    return { api, streamed };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s exits %i and names the job to watch again', async (signal, code) => {
    const { api, streamed } = await pendingJob();
    const r = await genjobs(
      ['run', IMAGE, '-i', 'prompt=x', '--wait', '-o', 'json'],
      { GENJOBS_URL: api.url },
      (child) => void streamed.then(() => child.kill(signal)),
    );
    expect(r.code).toBe(code);
    expect(oneLine(r.stderr)).toBe(
      'genjobs: stopped waiting; the job goes on (genjobs jobs watch job-7 to follow it again)',
    );
    expect(api.seen.filter((s) => s.includes('cancel'))).toEqual([]);
  });
});

it('the download folder is made when it does not exist yet', async () => {
  const api = await fakeApi((req, res, url) => {
    const done = aJob({ status: 'completed', outputs: [{ url: `${url}/files/out.png` }] });
    if (req.url === '/v1/jobs/job-1/events')
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(`id: 1\nevent: job\ndata: ${JSON.stringify(done)}\n\n`);
    else res.writeHead(200, { 'content-type': 'image/png' }).end('png bytes');
  });
  const dir = join(await testDir('genjobs-cli-'), 'new', 'folder');
  const r = await genjobs(['jobs', 'watch', 'job-1', '--download', dir], { GENJOBS_URL: api.url });
  expect(r.code, r.stderr).toBe(0);
  expect(await readdir(dir)).toEqual(['job-1.png']);
});
