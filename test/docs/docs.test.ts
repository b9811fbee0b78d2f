import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { openApiDocument } from '../../src/api/openapi.ts';
import { type E2e, startE2e } from '../support/e2e.ts';
import { startTestApi } from '../support/service.ts';

/** Debian's chromium, installed by npm run setup. */
const CHROMIUM = process.env.GENJOBS_CHROMIUM ?? '/usr/bin/chromium';

let s: E2e;
let key: string;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run npm run setup`);
  s = await startE2e('docs', { slots: 2 });
  key = await s.account({ name: 'acme' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${s.url}/docs`);
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
});
afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

/** Every operation of the served document, as "METHOD path", and its webhooks, as "METHOD name". */
async function documented(): Promise<string[]> {
  const doc = (await (await fetch(`${s.url}/v1/openapi.json`)).json()) as ReturnType<typeof openApiDocument>;
  const listed = (group: unknown) =>
    Object.entries(group as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
  return [...listed(doc.paths), ...listed(doc.webhooks)];
}

describe('GET /docs in a real browser', () => {
  it('loads with no console errors and lists every operation and webhook of the OpenAPI document', async () => {
    const shown = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    expect(shown.sort()).toEqual((await documented()).sort());
    expect(errors).toEqual([]);
  });

  it('a submit with no key pasted asks for one, and sends nothing', async () => {
    await page.fill('#key', '');
    await page.click('#submit');
    await page.locator('#events').getByText('paste an API key').waitFor({ timeout: 10_000 });
    expect((await page.textContent('#job-id'))?.trim()).toBe('none yet');
  });

  it('a submit from the page returns a job id whose events the page shows', async () => {
    await page.fill('#key', key);
    await page.selectOption('#model', 'genjobs/reference-image/text-to-image');
    await page.click('#submit');
    await page.locator('#events').getByText('completed').waitFor({ timeout: 90_000 });
    const jobId = (await page.textContent('#job-id'))?.trim() ?? '';
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    const job = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
    expect(job.status).toBe('completed');
    expect(await page.textContent('#events')).toContain(job.output);
    // Its file is a link.
    expect(
      await page.locator('#outputs a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
    ).toEqual(job.outputs.map((o: { url: string }) => o.url));
    expect(errors).toEqual([]);
  });

  it('fits a phone: an opened operation scrolls within itself, never the page sideways', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await phone.goto(`${s.url}/docs`);
      const op = phone
        .locator('.opblock-post', { has: phone.locator('[data-path="/v1/jobs/submit"]') })
        .first();
      await op.locator('.opblock-summary').click();
      await op.locator('.responses-table').first().waitFor({ timeout: 30_000 });
      expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await phone.close();
    }
  });

  /** Runs "Try it out" of GET `path` (an operation not run before) and answers the status the reference shows. */
  async function tryGet(path: string): Promise<string | undefined> {
    const op = page.locator('.opblock-get', { has: page.locator(`[data-path="${path}"]`) }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    return (await status.textContent())?.trim();
  }

  it('the pasted key authorizes "Try it out" on the reference, the model listing (x-api-key) too; an emptied field signs out', async () => {
    await page.fill('#key', key);
    await page.dispatchEvent('#key', 'change');
    expect(await tryGet('/v1/jobs')).toBe('200');
    expect(await tryGet('/v1/models')).toBe('200');
    await page.fill('#key', '');
    await page.dispatchEvent('#key', 'change');
    expect(await tryGet('/v1/account')).toBe('401');
  });
});

describe('GET /docs behind a proxy that publishes the api under a path prefix', () => {
  it('loads its files, the models and "Try it out" through the prefix (GENJOBS_PUBLIC_URL has it)', async () => {
    // The proxy: /genjobs/… to the api with the prefix stripped, as an Ingress rewrite does;
    // anything else is another application's.
    let upstream = '';
    const passed: string[] = [];
    const proxy = createServer((req, res) => {
      if (!req.url?.startsWith('/genjobs/')) return void res.writeHead(404).end('another application');
      passed.push(`${req.method} ${req.url}`);
      const to = new URL(req.url.slice('/genjobs'.length), upstream);
      const out = request(to, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.writeHead(502).end());
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const published = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/genjobs`;
    const api = await startTestApi('docs-prefix', { GENJOBS_PUBLIC_URL: published });
    upstream = api.api.url;
    const prefixed = await browser.newPage();
    const pageErrors: string[] = [];
    prefixed.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
    prefixed.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      const key = await api.account({ name: 'acme' });
      await prefixed.goto(`${published}/docs`);
      await prefixed.locator('.opblock').first().waitFor({ timeout: 30_000 });
      expect(await prefixed.locator('#model option').count()).toBeGreaterThan(0);
      // The quick start names the address the page was reached at, prefix and all.
      expect(await prefixed.textContent('#origin')).toBe(published);
      await prefixed.fill('#key', key);
      await prefixed.dispatchEvent('#key', 'change');
      const op = prefixed
        .locator('.opblock-get', { has: prefixed.locator('[data-path="/v1/jobs"]') })
        .first();
      await op.locator('.opblock-summary').click();
      await op.locator('button.execute').click();
      const status = op.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor({ timeout: 30_000 });
      expect((await status.textContent())?.trim()).toBe('200');
      expect(pageErrors).toEqual([]);
      expect(passed).toEqual(
        expect.arrayContaining([
          'GET /genjobs/docs/assets/swagger-ui.css',
          'GET /genjobs/docs/console.js',
          'GET /genjobs/v1/openapi.json',
          'GET /genjobs/v1/catalog/models',
          expect.stringMatching(/^GET \/genjobs\/v1\/jobs(\?|$)/),
        ]),
      );
      // The document itself names the prefix as its server, for generators that read it there.
      const doc = (await (await fetch(`${published}/v1/openapi.json`)).json()) as { servers: unknown };
      expect(doc.servers).toEqual([{ url: '/genjobs' }]);
    } finally {
      await prefixed.close();
      await api.stop();
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

describe('the console on a plain-http page of another host, behind a proxy that times out', () => {
  it('submits without crypto.randomUUID, and after a 504 sends the same key again: one job', async () => {
    // The proxy passes the first submit on and answers 504 (its wait for the api ran out),
    // then passes everything through.
    const keys: string[] = [];
    const proxy = createServer((req, res) => {
      const submit = req.method === 'POST' && req.url === '/v1/jobs/submit';
      if (submit) keys.push(String(req.headers['idempotency-key']));
      const out = request(
        new URL(req.url ?? '/', s.url),
        { method: req.method, headers: req.headers },
        (answer) => {
          if (submit && keys.length === 1) {
            answer.resume();
            return void res
              .writeHead(504, { 'content-type': 'text/html' })
              .end('<html><head><title>504 Gateway Time-out</title></head><body>nginx</body></html>');
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.writeHead(502).end());
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as AddressInfo).port;
    // Another host name over http: not a secure context, where crypto.randomUUID is missing.
    const insecure = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--host-resolver-rules=MAP genjobs.test 127.0.0.1'],
    });
    const pageErrors: string[] = [];
    try {
      const key = await s.account({ name: 'plainhttp' });
      const p = await insecure.newPage();
      p.on('pageerror', (e) => pageErrors.push(String(e)));
      await p.goto(`http://genjobs.test:${port}/docs`);
      expect(await p.evaluate('window.isSecureContext')).toBe(false);
      await p.locator('#model option').first().waitFor({ state: 'attached', timeout: 30_000 });
      await p.fill('#key', key);
      await p.selectOption('#model', 'genjobs/reference-image/text-to-image');
      await p.click('#submit');
      await p
        .locator('#events')
        .getByText(
          'HTTP 504 from something in front of the api (504 Gateway Time-out): the job may have been made',
        )
        .waitFor({ timeout: 30_000 });
      await p.click('#submit');
      await p.locator('#events').getByText('submitted').waitFor({ timeout: 30_000 });
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      const jobs = (await (await s.call('/v1/jobs', { key })).json()) as { jobs: Array<{ jobId: string }> };
      expect(jobs.jobs.map((j) => j.jobId)).toEqual([(await p.textContent('#job-id'))?.trim()]);
      expect(pageErrors).toEqual([]);
    } finally {
      await insecure.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

describe('the console when the event stream breaks before the job ends', () => {
  it('opens it again with Last-Event-ID and follows the job to its end', async () => {
    // The proxy ends the first event stream right after its first event, as a restarting
    // api or a proxy's read timeout does; later requests pass through.
    const streams: Array<string | undefined> = [];
    const proxy = createServer((req, res) => {
      const events = req.method === 'GET' && /^\/v1\/jobs\/[^/]+\/events$/.test(req.url ?? '');
      if (events) streams.push(req.headers['last-event-id'] as string | undefined);
      const cut = events && streams.length === 1;
      const out = request(
        new URL(req.url ?? '/', s.url),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (!cut) return void answer.pipe(res);
          let seen = '';
          answer.on('data', (chunk: Buffer) => {
            // A chunk read before the destroy below may still be delivered: ignore it.
            if (res.writableEnded) return;
            seen += chunk.toString();
            const end = seen.indexOf('\n\n', seen.indexOf('data:'));
            if (seen.includes('data:') && end >= 0) {
              res.end(seen.slice(0, end + 2));
              answer.destroy();
            }
          });
        },
      );
      out.on('error', () => res.headersSent || res.writeHead(502).end());
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const p = await browser.newPage();
    const pageErrors: string[] = [];
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      await p.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/docs`);
      await p.locator('#model option').first().waitFor({ state: 'attached', timeout: 30_000 });
      await p.fill('#key', key);
      await p.selectOption('#model', 'genjobs/reference-image/text-to-image');
      await p.click('#submit');
      await p.locator('#events').getByText('stream interrupted; reconnecting').waitFor({ timeout: 30_000 });
      await p.locator('#events').getByText('stream ended').waitFor({ timeout: 90_000 });
      expect(await p.textContent('#events')).toMatch(/ completed /);
      expect(streams.length).toBeGreaterThanOrEqual(2);
      expect(streams[0]).toBeUndefined();
      expect(streams[1]).toMatch(/\S/);
      expect(pageErrors).toEqual([]);
    } finally {
      await p.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});
