import { afterEach, describe, expect, it } from 'vitest';
import { GenjobsError, retryAfterSeconds } from './errors.ts';
import { Http, networkReason, segment } from './http.ts';
import { closeServers, problem, scripted } from './test-server.ts';

afterEach(closeServers);

describe('Http', () => {
  it('retries 429 and 503 with the same Idempotency-Key, waiting what Retry-After says, and a little more', async () => {
    const { url, seen } = await scripted([
      problem(429, 'CONCURRENT_JOBS_EXCEEDED', true, { 'retry-after': '3' }),
      problem(503, 'PUBSUB_PUBLISH_FAILED', true),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jobId":"j1"}'),
    ]);
    const waits: number[] = [];
    const http = new Http({ baseUrl: url, apiKey: 'gjk_x', sleep: async (ms) => void waits.push(ms) });
    const body = await http.json<{ jobId: string }>({
      method: 'POST',
      path: '/v1/jobs/submit',
      credential: 'bearer',
      body: {},
      headers: { 'idempotency-key': 'k1' },
      idempotent: true,
    });
    expect(body.jobId).toBe('j1');
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['k1', 'k1', 'k1']);
    expect(seen[0]!.headers.authorization).toBe('Bearer gjk_x');
    // Retry-After's 3 s, and a jitter of up to a quarter more (at most a second).
    expect(waits[0]).toBeGreaterThanOrEqual(3000);
    expect(waits[0]).toBeLessThanOrEqual(3750);
  });

  it('follows no redirect: one request, and an error naming the address to use instead', async () => {
    const { url, seen } = await scripted([
      (res) => res.writeHead(301, { location: 'https://gen.example.com/v1/jobs/submit' }).end(),
    ]);
    const err = (await new Http({ baseUrl: url, apiKey: 'gjk_x' })
      .json({ method: 'POST', path: '/v1/jobs/submit', credential: 'bearer', body: {}, idempotent: true })
      .catch((e: unknown) => e)) as GenjobsError;
    expect(err).toMatchObject({ status: 301, code: 'REDIRECTED', retryable: false });
    expect(err.message).toBe(
      `${url} redirects (HTTP 301) to https://gen.example.com/v1/jobs/submit: the api is at https://gen.example.com; give the client the address the api is at (GENJOBS_URL for the CLI): a request is not sent on, since it would lose its key and, for a POST, its method`,
    );
    expect(seen).toHaveLength(1);
    // Under a path prefix, the advice keeps it.
    const prefixed = await scripted([
      (res) => res.writeHead(301, { location: 'https://gen.example.com/genjobs/v1/account' }).end(),
    ]);
    const moved = (await new Http({ baseUrl: `${prefixed.url}/genjobs`, apiKey: 'gjk_x' })
      .json({ method: 'GET', path: '/v1/account', credential: 'bearer', idempotent: true })
      .catch((e: unknown) => e)) as GenjobsError;
    expect(moved.message).toContain('the api is at https://gen.example.com/genjobs;');
  });

  it("repeats a request that is not idempotent after the api's retryable refusal or a 429, never after a proxy's 504", async () => {
    const gateway = (res: import('node:http').ServerResponse) =>
      res.writeHead(504, { 'content-type': 'text/html' }).end('<title>504 Gateway Time-out</title>');
    const submit = { method: 'POST', path: '/v1/jobs/submit', credential: 'bearer', body: {} } as const;
    const proxied = await scripted([gateway, gateway]);
    const err = (await new Http({ baseUrl: proxied.url, sleep: async () => {} })
      .json(submit)
      .catch((e: unknown) => e)) as GenjobsError;
    // The proxy may have passed it on: a second would be a second job.
    expect([err.code, proxied.seen.length]).toEqual(['HTTP_504', 1]);
    const refused = await scripted([
      problem(503, 'PUBSUB_PUBLISH_FAILED', true),
      (res) => res.writeHead(429, { 'retry-after': '0' }).end(),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jobId":"j1"}'),
    ]);
    const body = await new Http({ baseUrl: refused.url, sleep: async () => {} }).json<{ jobId: string }>(
      submit,
    );
    expect([body.jobId, refused.seen.length]).toEqual(['j1', 3]);
  });

  it('throws one typed error with status, code, requestId and retryable', async () => {
    const { url } = await scripted([problem(402, 'INSUFFICIENT_BALANCE', false)]);
    const err = await new Http({ baseUrl: url })
      .json({ method: 'GET', path: '/v1/jobs/x', credential: 'bearer' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(GenjobsError);
    expect(err).toMatchObject({
      status: 402,
      code: 'INSUFFICIENT_BALANCE',
      requestId: 'req-1',
      retryable: false,
    });
  });

  it('gives up after maxRetries', async () => {
    const { url, seen } = await scripted([0, 1, 2].map(() => problem(503, 'UNAVAILABLE', true)));
    const http = new Http({ baseUrl: url, maxRetries: 2, sleep: async () => {} });
    await expect(http.json({ method: 'GET', path: '/x', credential: 'none' })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(seen).toHaveLength(3);
  });

  it('refuses a baseUrl that is not an http(s) address when it is made, not as a network error later', () => {
    for (const baseUrl of ['127.0.0.1:8080', 'localhost', '', 'ftp://h/'])
      expect(() => new Http({ baseUrl })).toThrow(/baseUrl must be an http:\/\/ or https:\/\/ address/);
    expect(() => new Http({ baseUrl: 'https://genjobs.example.com/' })).not.toThrow();
  });

  it('takes an address given with its /v1 (or a path prefix and /v1) as the service root', () => {
    expect(new Http({ baseUrl: 'https://genjobs.example.com/v1/' }).url('/v1/jobs')).toBe(
      'https://genjobs.example.com/v1/jobs',
    );
    expect(new Http({ baseUrl: 'https://example.com/genjobs/v1' }).url('/v1/jobs')).toBe(
      'https://example.com/genjobs/v1/jobs',
    );
    expect(new Http({ baseUrl: 'https://example.com/genjobs' }).url('/v1/jobs')).toBe(
      'https://example.com/genjobs/v1/jobs',
    );
  });

  it('never repeats a non-idempotent request that got no answer', async () => {
    let calls = 0;
    const http = new Http({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async () => {
        calls++;
        throw new TypeError('fetch failed');
      },
      sleep: async () => {},
    });
    await expect(
      http.json({ method: 'POST', path: '/v1/jobs/x/cancel', credential: 'bearer' }),
    ).rejects.toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
    expect(calls).toBe(1);
  });

  it('sends the key as x-api-key where the spec wants it', async () => {
    const { url, seen } = await scripted([
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    ]);
    await new Http({ baseUrl: url, apiKey: 'gjk_y' }).json({
      method: 'GET',
      path: '/v1/models',
      credential: 'x-api-key',
    });
    expect(seen[0]!.headers['x-api-key']).toBe('gjk_y');
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('gives up on a request that gets no answer within timeoutMs: a retryable network error, retried', async () => {
    const { url, seen } = await scripted([() => {}, () => {}, () => {}]); // never answers
    const http = new Http({ baseUrl: url, timeoutMs: 200, maxRetries: 2, sleep: async () => {} });
    const started = Date.now();
    const err = (await http
      .json({ method: 'GET', path: '/v1/account', credential: 'none', idempotent: true })
      .catch((e: unknown) => e)) as GenjobsError;
    expect(err).toBeInstanceOf(GenjobsError);
    expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
    expect(err.message).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+: timed out after 0\.2 s/);
    expect(seen).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out an answer whose body stalls, and never repeats a request that is not idempotent', async () => {
    const { url, seen } = await scripted([
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"jobId":'),
    ]);
    const http = new Http({ baseUrl: url, timeoutMs: 200, sleep: async () => {} });
    await expect(
      http.json({ method: 'POST', path: '/v1/jobs/x/cancel', credential: 'bearer' }),
    ).rejects.toMatchObject({ code: 'NETWORK_ERROR', message: expect.stringContaining('timed out') });
    expect(seen).toHaveLength(1);
  });

  it('the time limit ends with the answer: a slow caller reading a stream is not cut', async () => {
    const { url } = await scripted([
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': first\n\n');
        setTimeout(() => res.end(': last\n\n'), 400);
      },
    ]);
    const res = await new Http({ baseUrl: url, timeoutMs: 200 }).send({
      method: 'GET',
      path: '/v1/jobs/x/events',
      credential: 'none',
    });
    expect(await res.text()).toBe(': first\n\n: last\n\n');
  });

  it('a 200 that is not JSON (a proxy login page) is an INVALID_RESPONSE with its first bytes, not retried', async () => {
    const page = `<html><body>Sign in to the corporate proxy${' '.repeat(500)}</body></html>`;
    const { url, seen } = await scripted([
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page),
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page),
    ]);
    const err = (await new Http({ baseUrl: url, sleep: async () => {} })
      .json({ method: 'GET', path: '/v1/account', credential: 'none', idempotent: true })
      .catch((e: unknown) => e)) as GenjobsError;
    expect(err).toBeInstanceOf(GenjobsError);
    expect(err).toMatchObject({ status: 200, code: 'INVALID_RESPONSE', retryable: false });
    expect(err.message).toContain('<html><body>Sign in to the corporate proxy');
    expect(err.message.length).toBeLessThan(250);
    expect(seen).toHaveLength(1);
  });

  it('says why there was no answer, from the cause fetch keeps', async () => {
    const failed = (cause: object) => new TypeError('fetch failed', { cause });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const cert = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const each = Object.assign(new AggregateError([new Error('connect ECONNREFUSED ::1:80')], ''), {
      code: 'ECONNREFUSED',
    });
    expect(networkReason(failed(refused))).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(networkReason(failed(cert))).toBe(
      'fetch failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
    );
    expect(networkReason(failed(each))).toBe('fetch failed: connect ECONNREFUSED ::1:80');
    expect(networkReason(new TypeError('fetch failed'))).toBe('fetch failed');
    // And as the client says it, from a real refused connection.
    const err = (await new Http({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 })
      .json({ method: 'GET', path: '/x', credential: 'none', idempotent: true })
      .catch((e: unknown) => e)) as GenjobsError;
    expect(err.message).toMatch(/^no answer from http:\/\/127\.0\.0\.1:9: fetch failed: .+/);
  });

  it('refuses an empty, . or .. path segment before any request', () => {
    for (const id of ['', '.', '..']) expect(() => segment('a job id', id)).toThrow(TypeError);
    expect(segment('a job id', 'a/b c')).toBe('a%2Fb%20c');
    expect(segment('a job id', '...')).toBe('...');
  });
});

describe('an answer that is not problem+json', () => {
  it("is one line: an S3-compatible store's XML error as its code and message, any other body squeezed", async () => {
    const xml =
      '<?xml version="1.0" encoding="utf-8"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>gj</BucketName></Error>';
    const s3 = await GenjobsError.fromResponse(new Response(xml, { status: 404 }));
    expect([s3.message, s3.code, s3.retryable]).toEqual([
      'NoSuchBucket: The specified bucket does not exist',
      'HTTP_404',
      false,
    ]);
    const page = await GenjobsError.fromResponse(
      new Response('<html>\n  <body>Bad   gateway</body>\n</html>', { status: 502 }),
    );
    expect([page.message, page.retryable]).toEqual(['<html> <body>Bad gateway</body> </html>', true]);
  });

  it("is an HTML page's title, and a proxy's 413 says which limit to raise", async () => {
    const page = (title: string) =>
      `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>`;
    const gateway = await GenjobsError.fromResponse(
      new Response(page('504 Gateway Time-out'), { status: 504 }),
    );
    expect([gateway.message, gateway.code, gateway.retryable]).toEqual([
      '504 Gateway Time-out',
      'HTTP_504',
      true,
    ]);
    const large = await GenjobsError.fromResponse(
      new Response(page('413 Request Entity Too Large'), { status: 413 }),
    );
    expect(large.message).toBe(
      '413 Request Entity Too Large: something in front of the api (a proxy) refused the request as too large; raise its body size limit (nginx: client_max_body_size) to what the api accepts',
    );
    expect(large.retryable).toBe(false);
    // The api's own 413 is problem+json: its detail, no word of a proxy.
    const own = await GenjobsError.fromResponse(
      new Response(JSON.stringify({ code: 'PAYLOAD_TOO_LARGE', detail: 'the body is larger than 1 MiB' }), {
        status: 413,
      }),
    );
    expect([own.message, own.code]).toEqual(['the body is larger than 1 MiB', 'PAYLOAD_TOO_LARGE']);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP-dates; an absent or unreadable one is undefined, never 0', () => {
    expect(retryAfterSeconds('5')).toBe(5);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('')).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it("a proxy's 502/503 without Retry-After waits the client's backoff, not 0 ms", async () => {
    const page = (status: number) => (res: import('node:http').ServerResponse) =>
      res.writeHead(status, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
    const { url } = await scripted([page(502), page(503), page(503)]);
    const waits: number[] = [];
    const http = new Http({ baseUrl: url, maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
    const err = await http
      .json({ method: 'GET', path: '/v1/jobs/x', credential: 'none', idempotent: true })
      .catch((e) => e);
    expect(err).toMatchObject({ status: 503, retryAfterSeconds: undefined });
    expect(waits).toHaveLength(2);
    for (const ms of waits) expect(ms).toBeGreaterThan(0);
  });
});
