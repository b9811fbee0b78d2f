import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestService } from '../support/service.ts';

/** Debian's chromium, installed by npm run setup. */
const CHROMIUM = process.env.GENJOBS_CHROMIUM ?? '/usr/bin/chromium';

let svc: TestService;
let key: string;
let app: http.Server;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run npm run setup`);
  svc = await startTestApi('upload-browser');
  key = await svc.account({ name: 'acme' });
  // A web app's page, served from an origin of its own (another port), as a front end is.
  app = http.createServer((_req, res) => res.end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`);
});
afterAll(async () => {
  await browser?.close();
  app?.close();
  await svc?.stop();
});

/** The api listens on a random port; the URLs it hands out name the configured public one. */
const local = (url: string) => {
  const u = new URL(url);
  return `${svc.api.url}${u.pathname}${u.search}`;
};

async function presigned(): Promise<{ uploadUrl: string; fileUrl: string }> {
  const res = await fetch(`${svc.api.url}/v1/uploads/presign`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ filename: 'cat.png', contentType: 'image/png' }),
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { uploadUrl: string; fileUrl: string } };
  return { uploadUrl: local(data.uploadUrl), fileUrl: local(data.fileUrl) };
}

describe('a page on another origin (real Chromium)', () => {
  it('PUTs a file to its presigned address and reads it back: the address is the permission', async () => {
    const { uploadUrl, fileUrl } = await presigned();
    const got = await page.evaluate(
      async ({ uploadUrl, fileUrl }) => {
        const put = await fetch(uploadUrl, {
          method: 'PUT',
          headers: { 'content-type': 'image/png' },
          body: new Uint8Array([137, 80, 78, 71, 1, 2, 3]),
        });
        const read = await fetch(fileUrl);
        return {
          put: put.status,
          requestId: put.headers.get('x-request-id'),
          read: read.status,
          etag: read.headers.get('etag'),
          bytes: [...new Uint8Array(await read.arrayBuffer())],
        };
      },
      { uploadUrl, fileUrl },
    );
    expect(got).toMatchObject({ put: 200, read: 200, bytes: [137, 80, 78, 71, 1, 2, 3] });
    expect(got.requestId).toMatch(/\S/);
    expect(got.etag).toMatch(/\S/);
  });

  it("reads a refused PUT's answer (the code and Retry-After a page needs), and still cannot call the api", async () => {
    const { uploadUrl } = await presigned();
    const got = await page.evaluate(
      async ({ uploadUrl, api }) => {
        const wrongType = await fetch(uploadUrl, {
          method: 'PUT',
          headers: { 'content-type': 'image/jpeg' },
          body: new Uint8Array([1]),
        });
        // The api itself sends no CORS headers: an API key does not belong in a page.
        const account = await fetch(`${api}/v1/account`).then(
          (r) => `answered ${r.status}`,
          (e: unknown) => `refused: ${String(e)}`,
        );
        return { status: wrongType.status, body: await wrongType.json(), account };
      },
      { uploadUrl, api: svc.api.url },
    );
    expect(got.status).toBe(415);
    expect(got.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(got.account).toMatch(/^refused: TypeError/);
  });

  it('a preflight allows GET, HEAD and PUT with a Content-Type, never an Authorization header', async () => {
    const { uploadUrl } = await presigned();
    const res = await fetch(uploadUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, PUT');
    expect(res.headers.get('access-control-allow-headers')).not.toMatch(/authorization/i);
    // A worker's grant (Authorization: Bearer) cannot be sent from a page.
    const grant = await page.evaluate(async (url) => {
      try {
        await fetch(url, {
          method: 'PUT',
          headers: { authorization: 'Bearer x', 'content-type': 'image/png' },
        });
        return 'sent';
      } catch (e) {
        return `refused: ${String(e)}`;
      }
    }, uploadUrl);
    expect(grant).toMatch(/^refused: TypeError/);
  });
});
