import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { AccountAdmin, type NewAccount } from '../../src/accounts/admin.ts';
import { type RunningApi, startApi } from '../../src/api/main.ts';
import { defaultCatalogConfigMap } from '../../src/catalog/install.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/dev/controlplane.ts';
import type { Kube } from '../../src/k8s/client.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';
import { type Resources, resources } from '../../src/k8s/resources.ts';
import type { Scope } from '../../src/k8s/types.ts';
import { createLogger, type Logger, loggerOptions, silentLogger } from '../../src/log.ts';
import { testNamespace } from './cluster.ts';
import { checkContract } from './contract.ts';

/** A fetch Response whose JSON body tests may read without casts. */
export interface TestResponse extends Response {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in tests.
  json(): Promise<any>;
}

export interface TestService {
  kube: Kube;
  r: Resources;
  api: RunningApi;
  admin: AccountAdmin;
  config: Config;
  /** Creates an account and a key with the scopes; returns the key. */
  account(a: Partial<NewAccount> & { name: string }, scopes?: Scope[]): Promise<string>;
  /** fetch against the api with the key as Bearer token. */
  call(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<TestResponse>;
  stop(): Promise<void>;
}

const log = () => (process.env.GENJOBS_TEST_LOGS ? createLogger('test', 'debug') : silentLogger());

/** The api on a fresh namespace with the default catalog installed. */
export async function startTestApi(
  prefix: string,
  env: NodeJS.ProcessEnv = {},
  logger?: Logger,
  /** The identity the api runs as (default: the admin). */
  apiIdentity?: (admin: Kube) => Promise<Kube>,
): Promise<TestService> {
  const kube = await testNamespace(prefix);
  const dir = await mkdtemp(join(tmpdir(), 'genjobs-blobs-'));
  await applyConfigMap(kube, await defaultCatalogConfigMap());
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
    GENJOBS_BLOB_DIR: dir,
    GENJOBS_BLOB_SECRET: randomBytes(24).toString('hex'),
    // Tests poll and submit fast from one account; test/api/limits.test.ts turns it on.
    GENJOBS_RATE_LIMIT_RPS: '0',
    // Credit leases end within a second, so a test sees unused credit back soon (docs/money.md).
    GENJOBS_LEASE_TERM: '1s',
    ...env,
  });
  const api = await startApi({
    config,
    kube: apiIdentity ? await apiIdentity(kube) : kube,
    log: logger ?? log(),
  });
  await waitReady(api.url);
  const r = resources(kube);
  const admin = new AccountAdmin(r);
  return {
    kube,
    r,
    api,
    admin,
    config,
    async account(a, scopes = ['submit_job', 'check_status', 'list_models']) {
      await admin.createAccount({ plan: 'pro', grantMicroCents: 100_000_000, ...a });
      return (await admin.createKey(a.name, scopes)).key;
    },
    call(path, init = {}) {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set('authorization', `Bearer ${key}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return checkedFetch(`${api.url}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async stop() {
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** fetch, and every JSON answer checked against the OpenAPI document before the test sees it. */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<TestResponse> {
  const res = (await fetch(url, init)) as TestResponse;
  if (!/json/.test(res.headers.get('content-type') ?? '')) return res;
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  checkContract(init.method ?? 'GET', url, res.status, body);
  return Object.assign(new Response(text, { status: res.status, headers: res.headers }), {
    json: async () => body,
  }) as TestResponse;
}

async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('api not ready within 20 s');
}

/** A logger that keeps every line in memory, to assert on what a process logged. */
export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  // The processes' own options (redaction, level names), so a test reads what an operator would.
  const log = pino(loggerOptions('test', 'debug'), { write: (line: string) => lines.push(line) });
  return { log, lines };
}
