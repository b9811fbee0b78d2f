import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_RANGES } from '../webhooks/address.ts';
import { DownloadError } from './download.ts';
import { guardedInputFetch } from './input-guard.ts';
import { serve, type TestServer } from './test-helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await serve((req, res, _body, base) => {
    if (req.url === '/to-private') res.writeHead(302, { location: 'http://10.1.2.3/secret' }).end();
    else if (req.url === '/to-trusted') res.writeHead(302, { location: `${base}/files/a.png` }).end();
    else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(`served ${req.url}`);
  });
});
afterAll(async () => server?.close());

const refusal = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return (error as Error).message;
};

describe('guardedInputFetch', () => {
  it('refuses a loopback URL before connecting, and fetches it where private inputs are allowed', async () => {
    const before = server.requests.length;
    const guarded = guardedInputFetch(fetch, { trusted: [], policy: {} });
    expect(await refusal(guarded(`${server.url}/x`))).toMatch(
      /not fetched: loopback address 127\.0\.0\.1 is not public/,
    );
    expect(server.requests.length).toBe(before);

    const open = guardedInputFetch(fetch, { trusted: [], policy: { allowPrivateTargets: true } });
    expect(await (await open(`${server.url}/x`)).text()).toBe('served /x');
  });

  it('checks what a name resolves to, and never allows the metadata address', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const guarded = guardedInputFetch(fetch, { trusted: [], policy: {}, resolve });
    expect(await refusal(guarded('http://innocent.example/a.png'))).toMatch(/loopback address/);
    const open = guardedInputFetch(fetch, { trusted: [], policy: { allowPrivateTargets: true } });
    expect(await refusal(open('http://169.254.169.254/latest/meta-data/'))).toMatch(/never allowed/);
  });

  it("passes the service's own file URLs, wherever they live", async () => {
    const guarded = guardedInputFetch(fetch, { trusted: [`${server.url}/files/`], policy: {} });
    expect(await (await guarded(`${server.url}/files/u.png`)).text()).toBe('served /files/u.png');
    expect(await refusal(guarded(`${server.url}/other`))).toMatch(/not public/);
  });

  it('checks every redirect hop, and stops a redirect loop', async () => {
    const policy = { allowedRanges: LOOPBACK_RANGES };
    const guarded = guardedInputFetch(fetch, { trusted: [`${server.url}/files/`], policy });
    expect(await refusal(guarded(`${server.url}/to-private`))).toMatch(
      /private address 10\.1\.2\.3 is not public/,
    );
    expect(await (await guarded(`${server.url}/to-trusted`)).text()).toBe('served /files/a.png');
    expect(await refusal(guarded(`${server.url}/loop`))).toMatch(/redirected more than 5 times/);
  });

  it('leaves data: URIs alone', async () => {
    const guarded = guardedInputFetch(fetch, { trusted: [], policy: {} });
    expect(await (await guarded('data:text/plain,hello')).text()).toBe('hello');
  });
});
