import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../../src/dev/controlplane.ts';
import { kubeconfigPath } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

// `genjobs api` as a process, stopped the way Kubernetes stops a Pod: SIGTERM.
let svc: TestService;
let child: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  svc = await startTestApi('shutdown');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'src', 'cli.ts'), 'api', '--kubeconfig', kubeconfigPath(), '-n', svc.kube.namespace],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        GENJOBS_PUBLIC_URL: url,
        GENJOBS_BLOB_DIR: svc.config.GENJOBS_BLOB_DIR,
        GENJOBS_BLOB_SECRET: svc.config.GENJOBS_BLOB_SECRET,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error('genjobs api did not get ready');
    await new Promise((r) => setTimeout(r, 100));
  }
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await svc?.stop();
});

describe('genjobs api on SIGTERM', () => {
  it('finishes the request in flight, takes no new one, and exits 0', async () => {
    const key = await svc.account({ name: 'acme' });
    const presign = await fetch(`${url}/v1/uploads/presign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.png', contentType: 'image/png' }),
    });
    expect(presign.status).toBe(200);
    const { data } = (await presign.json()) as { data: { uploadUrl: string; fileUrl: string } };

    // An upload whose body is half sent when the signal comes.
    const body = Buffer.alloc(200_000, 7);
    const req = http.request(data.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', 'content-length': String(body.length) },
    });
    const answered = once(req, 'response') as Promise<[http.IncomingMessage]>;
    req.write(body.subarray(0, 100_000));
    await new Promise((r) => setTimeout(r, 200));
    const exited = once(child!, 'exit');
    child!.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));

    // No new connections once it is stopping.
    expect(
      await fetch(`${url}/healthz`).then(
        () => 'answered',
        () => 'refused',
      ),
    ).toBe('refused');

    req.end(body.subarray(100_000));
    const [res] = await answered;
    res.resume();
    expect(res.statusCode).toBeLessThan(300);
    const [code] = await exited;
    expect(code).toBe(0);

    // The upload is whole: the other api (same blob store) serves every byte.
    const stored = await fetch(`${svc.api.url}${new URL(data.fileUrl).pathname}`);
    expect(stored.status).toBe(200);
    expect(Buffer.from(await stored.arrayBuffer()).equals(body)).toBe(true);
  });
});
