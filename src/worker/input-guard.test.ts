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
    else if (req.url === '/files/moved') res.writeHead(302, { location: 'http://10.1.2.3/secret' }).end();
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
    expect(await refusal(guarded('http://innocent.example/a.png'))).toMatch(
      /innocent\.example does not resolve to a public address/,
    );
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

  it('checks the address at connect time: a name that answers public, then loopback (DNS rebinding), is refused', async () => {
    const answers = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let lookups = 0;
    const resolve = async () => answers[Math.min(lookups++, answers.length - 1)]!;
    const before = server.requests.length;
    const guarded = guardedInputFetch(fetch, { trusted: [], policy: {}, resolve });
    const message = await refusal(guarded(`http://localhost:${new URL(server.url).port}/secret`));
    expect(message).toBe(
      'is not fetched: localhost does not resolve to a public address (inputs must be public URLs)',
    );
    expect(lookups).toBe(2);
    expect(server.requests.length).toBe(before);
  });

  it("names no resolved address or its kind, tells an internal name as one that does not resolve, and follows a trusted URL's redirect only where allowed", async () => {
    const resolve = async () => [{ address: '10.96.0.10', family: 4 }];
    const guarded = guardedInputFetch(fetch, { trusted: [`${server.url}/files/`], policy: {}, resolve });
    const message = await refusal(guarded('http://internal.example/a.png'));
    expect(message).toBe(
      'is not fetched: internal.example does not resolve to a public address (inputs must be public URLs)',
    );
    expect(await refusal(guarded(`${server.url}/files/moved`))).toMatch(
      /private address 10\.1\.2\.3 is not public/,
    );
    const failing = guardedInputFetch(fetch, {
      trusted: [],
      policy: {},
      resolve: async () => Promise.reject(new Error('getaddrinfo EAI_AGAIN via 10.96.0.10:53')),
    });
    expect(await refusal(failing('http://internal.example/a.png'))).toBe(message);
  });

  it('leaves data: URIs alone', async () => {
    const guarded = guardedInputFetch(fetch, { trusted: [], policy: {} });
    expect(await (await guarded('data:text/plain,hello')).text()).toBe('hello');
  });
});
