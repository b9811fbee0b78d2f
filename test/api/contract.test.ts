import http from 'node:http';
import net from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestApi('contract');
  key = await svc.account({ name: 'acme' });
});
afterAll(async () => {
  await svc?.stop();
});

const IMAGE = 'genjobs/reference-image/text-to-image';
const VIDEO = 'genjobs/reference-video/text-to-video';

/** A request with the path sent byte for byte as given (fetch would normalize some). */
function raw(method: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(svc.api.url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}
const codeOf = (body: string) => (body ? JSON.parse(body).code : undefined);

describe('405 for a method a path does not have', () => {
  it.each([
    ['DELETE', '/v1/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', 'GET, HEAD, OPTIONS'],
    ['PUT', '/v1/catalog/models', 'GET, HEAD, OPTIONS'],
    ['PATCH', '/v1/catalog/models/genjobs/reference-image', 'GET, HEAD, OPTIONS'],
    // not a look-up of a job named "submit": the literal path wins, as in OpenAPI
    ['GET', '/v1/jobs/submit', 'OPTIONS, POST'],
    ['GET', '/v1/uploads/presign', 'OPTIONS, POST'],
    ['GET', '/v1/jobs/x/cancel', 'OPTIONS, POST'],
    ['POST', '/v1/openapi.json', 'GET, HEAD, OPTIONS'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await raw(method, path, { authorization: `Bearer ${key}` });
    expect([res.status, codeOf(res.body), res.headers.allow]).toEqual([405, 'METHOD_NOT_ALLOWED', allow]);
  });

  it('the upload API wraps its 405 too, as it wraps every answer (spec 4.5, 4.6)', async () => {
    const res = await raw('DELETE', '/v1/uploads/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', {
      authorization: `Bearer ${key}`,
    });
    expect(res.status).toBe(405);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
    const other = await raw('DELETE', '/v1/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', {
      authorization: `Bearer ${key}`,
    });
    expect(JSON.parse(other.body).success).toBeUndefined();
  });

  it('a path the API does not have stays 404', async () => {
    const res = await raw('GET', '/v1/jobs/x/cancel/y');
    expect([res.status, codeOf(res.body), res.headers.allow]).toEqual([404, 'NOT_FOUND', undefined]);
  });

  it('answers OPTIONS with the methods the path has', async () => {
    const res = await raw('OPTIONS', '/v1/jobs/submit');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toContain('POST');
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Bytes written as they are on a fresh connection, and everything the server sent back. */
  const exchange = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const url = new URL(svc.api.url);
      const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (c) => {
        answer += c;
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  const parse = (answer: string) => {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    const [statusLine, ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    return { statusLine, headers, body: body ? JSON.parse(body) : undefined };
  };

  it('answers a URL over the header limit with a 431 problem body, not a bare status line', async () => {
    const res = parse(await exchange(`GET /v1/jobs?model=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', retryable: false });
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.body.detail).toMatch(/JSON body/);
  });

  it('answers bytes that are not HTTP with 400 MALFORMED_REQUEST, and goes on serving', async () => {
    const res = parse(await exchange('HELLO THERE\r\n\r\n'));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST' });
    expect((await raw('GET', '/healthz')).status).toBe(200);
  });
});

describe('path parameters are percent-decoded once', () => {
  it.each([
    ['/v1/catalog/models/%25', 404, 'MODEL_NOT_FOUND'],
    ['/v1/catalog/models/genjobs/%25', 404, 'MODEL_NOT_FOUND'],
    ['/v1/catalog/models/genjobs%2Freference-image', 200, undefined],
    ['/v1/catalog/models/genjobs/reference%2Dimage/text-to-image', 200, undefined],
    ['/v1/catalog/models/%E0%A4%A', 400, 'MALFORMED_REQUEST'],
    ['/v1/catalog/providers/%25', 404, 'NOT_FOUND'],
    ['/v1/jobs/%25', 404, 'JOB_NOT_FOUND'],
    ['/v1/jobs/%25/cancel', 404, 'JOB_NOT_FOUND'],
    ['/v1/uploads/%25', 404, 'NOT_FOUND'],
    ['/v1/jobs/%', 400, 'MALFORMED_REQUEST'],
    ['/v1/jobs/%E0%A4%A', 400, 'MALFORMED_REQUEST'],
    ['/v1/jobs/%E0%A4%A/events', 400, 'MALFORMED_REQUEST'],
    ['/v1/jobs/%E0%A4%A/cancel', 400, 'MALFORMED_REQUEST'],
    ['/v1/uploads/%E0%A4%A', 400, 'VALIDATION_ERROR'],
    ['/v1/catalog/providers/%E0%A4%A', 400, 'MALFORMED_REQUEST'],
    ['/v1/providers/%E0%A4%A/models', 400, 'MALFORMED_REQUEST'],
    // A file key is never decoded: no such key.
    ['/files/uploads/acme/%E0%A4%A', 404, 'NOT_FOUND'],
    ['/docs/%E0%A4%A', 404, 'NOT_FOUND'],
    ['/v1/jobs?cursor=%E0%A4%A', 400, 'VALIDATION_ERROR'],
    ['/v1/catalog/models?category=%E0%A4%A', 200, undefined],
    ['/files/uploads/acme/%25', 404, 'NOT_FOUND'],
  ])('GET %s answers %i %s', async (path, status, code) => {
    const method = path.endsWith('/cancel') ? 'POST' : 'GET';
    const res = await raw(method, path, { authorization: `Bearer ${key}` });
    expect([res.status, codeOf(res.body)]).toEqual([status, code ?? codeOf(res.body)]);
  });

  it('a list parameter given twice is refused as such; one the list does not read may repeat', async () => {
    for (const path of [
      '/v1/jobs?status=pending&status=failed',
      '/v1/catalog/models?category=image&category=video',
    ]) {
      const res = await raw('GET', path, { authorization: `Bearer ${key}` });
      const body = JSON.parse(res.body);
      expect([path, res.status, body.code, body.errors?.[0]?.message]).toEqual([
        path,
        400,
        'VALIDATION_ERROR',
        'is given more than once; give it once',
      ]);
    }
    expect((await raw('GET', '/v1/catalog/models?_=1&_=2')).status).toBe(200);
  });

  it('and so on the x-api-key listings', async () => {
    const res = await raw('GET', '/v1/providers/%25/models', { 'x-api-key': key });
    expect([res.status, codeOf(res.body)]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('null is absent', () => {
  it('submit takes webhookUrl and version as null', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, version: null, input: { prompt: 'x' }, webhookUrl: null },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).costMicroCents).toBe(134_000);
  });

  it('estimate takes input and version as null', async () => {
    const res = await svc.call('/v1/jobs/estimate', {
      method: 'POST',
      key,
      json: { model: VIDEO, version: null, input: null },
    });
    expect([res.status, (await res.json()).estimatedCostMicroCents]).toEqual([200, 2_400_000]);
  });

  it("estimate takes a submit's body as it is: its webhookUrl changes no price", async () => {
    for (const webhookUrl of [null, 'https://hooks.example/genjobs']) {
      const res = await svc.call('/v1/jobs/estimate', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { prompt: 'x', duration: 4 }, webhookUrl },
      });
      expect([res.status, (await res.json()).estimatedCostMicroCents]).toEqual([200, 1_200_000]);
    }
  });
});

describe('estimate validates as submit does', () => {
  it.each([{ duration: 5 }, { duration: 30 }, { resolution: '8k' }])(
    'refuses %j with the 422 INVALID_INPUT submit answers',
    async (input) => {
      const est = await svc.call('/v1/jobs/estimate', { method: 'POST', key, json: { model: VIDEO, input } });
      const sub = await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { prompt: 'x', ...input } },
      });
      const [e, s] = [await est.json(), await sub.json()];
      expect([est.status, e.code, e.errors]).toEqual([422, 'INVALID_INPUT', s.errors]);
      expect([sub.status, s.code]).toEqual([422, 'INVALID_INPUT']);
    },
  );

  it('prices partial input (no prompt) at what submit charges for it', async () => {
    const est = await (
      await svc.call('/v1/jobs/estimate', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { duration: '4' } },
      })
    ).json();
    const sub = await (
      await svc.call('/v1/jobs/submit', {
        method: 'POST',
        key,
        json: { model: VIDEO, input: { prompt: 'x', duration: '4' } },
      })
    ).json();
    expect(est.estimatedCostMicroCents).toBe(sub.costMicroCents);
    expect(sub.costMicroCents).toBe(1_200_000);
  });
});

describe('a submit body of the wrong shape', () => {
  it.each([
    ['missing input', { model: IMAGE }],
    ['an unknown top-level field', { model: IMAGE, input: { prompt: 'x' }, priority: 1 }],
    ['a bad version', { model: IMAGE, version: 'latest', input: { prompt: 'x' } }],
    ['input not an object', { model: IMAGE, input: 'a cat' }],
    ['a body that is an array', [{ model: IMAGE }]],
  ])('answers 422 INVALID_INPUT for %s', async (_name, json) => {
    const res = await svc.call('/v1/jobs/submit', { method: 'POST', key, json });
    expect([res.status, (await res.json()).code]).toEqual([422, 'INVALID_INPUT']);
  });

  it('answers 400 MALFORMED_REQUEST for a bad Idempotency-Key header', async () => {
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'idempotency-key': 'a b' },
      json: { model: IMAGE, input: { prompt: 'x' } },
    });
    expect([res.status, (await res.json()).code]).toEqual([400, 'MALFORMED_REQUEST']);
  });
});

describe('the default job price in every listing', () => {
  const PRICED = {
    baseCredits: 200_000,
    defaultCostMicroCents: 2_400_000,
    unit: 'per_generation',
    perSecond: { field: 'duration' },
  };

  it('shows on the catalog list, detail and provider detail, and the two API-key listings', async () => {
    const list = await (await svc.call('/v1/catalog/models')).json();
    expect(list.find((m: { slug: string }) => m.slug === VIDEO).pricing).toEqual(PRICED);
    expect((await (await svc.call(`/v1/catalog/models/${VIDEO}`)).json()).pricing).toEqual(PRICED);
    const provider = await (await svc.call('/v1/catalog/providers/genjobs')).json();
    expect(provider.models.find((m: { slug: string }) => m.slug === VIDEO).pricing).toEqual(PRICED);
    const models = await (await svc.call('/v1/models', { headers: { 'x-api-key': key } })).json();
    expect(models.models.find((m: { id: string }) => m.id === VIDEO).currentVersionPricing).toEqual(PRICED);
    const scoped = await (
      await svc.call('/v1/providers/genjobs/models', { headers: { 'x-api-key': key } })
    ).json();
    expect(scoped.models.find((m: { id: string }) => m.id === VIDEO).currentVersionPricing).toEqual(PRICED);
  });

  it('is the discounted price for an account with a discount, as estimate says', async () => {
    const vip = await svc.account({ name: 'vip', discountPercent: 25 });
    const list = await (await svc.call('/v1/catalog/models', { key: vip })).json();
    const est = await (
      await svc.call('/v1/jobs/estimate', { method: 'POST', key: vip, json: { model: VIDEO } })
    ).json();
    expect(list.find((m: { slug: string }) => m.slug === VIDEO).pricing.defaultCostMicroCents).toBe(
      est.estimatedCostMicroCents,
    );
    expect(est.estimatedCostMicroCents).toBe(1_800_000);
  });
});

describe('request bodies are read once the caller is known', () => {
  /**
   * Sends the request line, headers and `sent` of a body announced as `length` bytes, and
   * resolves with everything the server wrote before `waitMs` (the rest of the body is never
   * sent): the interim and final responses a client sees while it holds its body back.
   */
  function heldBack(headers: Record<string, string>, length: number, sent = '', waitMs = 1_500) {
    const url = new URL(svc.api.url);
    return new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        const lines = Object.entries({ host: url.host, 'content-type': 'application/json', ...headers })
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('');
        socket.write(`POST /v1/jobs/submit HTTP/1.1\r\n${lines}content-length: ${length}\r\n\r\n${sent}`);
      });
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (c) => {
        got += c;
      });
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, waitMs);
    });
  }

  it('a body from an unknown caller is never waited for: 401 while it is still on its way', async () => {
    const answer = await heldBack({ authorization: 'Bearer gjk_notakey' }, 200_000, '{"model":"');
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toContain('INVALID_API_KEY');
  });

  it('Expect: 100-continue is answered 401 without a 100 for a bad key, and 100 for a good one', async () => {
    const refused = await heldBack({ authorization: 'Bearer gjk_notakey', expect: '100-continue' }, 50);
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused).not.toContain('100 Continue');
    const invited = await heldBack({ authorization: `Bearer ${key}`, expect: '100-continue' }, 50);
    expect(invited).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    // Over the body limit by its declared length: 413 at once, not invited.
    const tooLarge = await heldBack({ authorization: `Bearer ${key}`, expect: '100-continue' }, 5_000_000);
    expect(tooLarge).toMatch(/^HTTP\/1\.1 413 /);
    expect(tooLarge).toContain('PAYLOAD_TOO_LARGE');
  });

  it('a client that waits for 100 Continue still submits (curl does for large bodies)', async () => {
    const body = JSON.stringify({ model: IMAGE, input: { prompt: 'after a 100' } });
    const url = new URL(svc.api.url);
    const answer = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = http.request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/v1/jobs/estimate',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, continued }));
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, continued: true });
  });

  it('a body that gives a name twice is refused 400: one reader would see the first, JSON.parse the last', async () => {
    const before = (await (await svc.call('/v1/jobs?limit=100', { key })).json()).jobs.length;
    const res = await svc.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${VIDEO}","model":"${IMAGE}","input":{"prompt":"twice"}}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'MALFORMED_REQUEST',
      detail: /gives \/model more than once/,
    });
    const nested = await svc.call('/v1/jobs/estimate', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${VIDEO}","input":{"duration":4,"duration":8}}`,
    });
    expect((await nested.json()).detail).toMatch(/\/input\/duration more than once/);
    expect((await (await svc.call('/v1/jobs?limit=100', { key })).json()).jobs.length).toBe(before);
  });

  it('a JSON body that is not UTF-8 is refused 400, not read with replacement characters', async () => {
    const body = Buffer.concat([
      Buffer.from(`{"model":"${IMAGE}","input":{"prompt":"a `),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
    const res = await svc.call('/v1/jobs/estimate', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'MALFORMED_REQUEST', detail: /not valid UTF-8/ });
  });

  it.each([
    ['latin1', 415],
    ['utf-16', 415],
    ['utf8', 415],
    ['"iso-8859-1"', 415],
    ['utf-8', 200],
    ['UTF-8', 200],
    ['"utf-8"', 200],
  ])(
    'a JSON body declared charset=%s is answered %i, whatever its bytes: JSON is UTF-8',
    async (charset, status) => {
      const res = await svc.call('/v1/jobs/estimate', {
        method: 'POST',
        key,
        headers: { 'content-type': `application/json; charset=${charset}` },
        body: JSON.stringify({ model: IMAGE, input: { prompt: 'x' } }),
      });
      expect(res.status).toBe(status);
      if (status === 415) {
        expect(await res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', detail: /UTF-8/ });
      }
    },
  );

  it.each(['/v1/catalog/models', '/v1/jobs?limit=1'])(
    'a body on a GET means nothing (RFC 9110 9.3.1): %s does not parse it',
    async (path) => {
      const url = new URL(svc.api.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            method: 'GET',
            path,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'content-length': 4,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{bad');
      });
      expect(status).toBe(200);
    },
  );
});

describe('request headers', () => {
  /** Status and body of a GET sent with these headers, each value of an array a line of its own. */
  function get(path: string, headers: Record<string, string | string[]>) {
    const url = new URL(svc.api.url);
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'GET', path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      for (const [k, v] of Object.entries(headers)) req.setHeader(k, v);
      req.on('error', reject);
      req.end();
    });
  }

  it('two credentials are none: two Authorization or x-api-key headers are 401, whichever comes first', async () => {
    const other = await svc.account({ name: 'other' });
    for (const [name, values] of [
      ['authorization', [`Bearer ${key}`, `Bearer ${other}`]],
      ['authorization', [`Bearer ${other}`, `Bearer ${key}`]],
      ['x-api-key', [key, other]],
    ] as const) {
      const path = name === 'x-api-key' ? '/v1/models' : '/v1/account';
      const res = await get(path, { [name]: [...values] });
      expect([res.status, JSON.parse(res.body).code]).toEqual([401, 'UNAUTHENTICATED']);
      expect(JSON.parse(res.body).detail).toMatch(/^send one (Authorization|x-api-key) header, not 2$/);
      expect((await get(path, { [name]: values[0] })).status).toBe(200);
    }
  });

  it('an expectation other than 100-continue is ignored: the request is answered as without it', async () => {
    const res = await get('/v1/account', { authorization: `Bearer ${key}`, expect: 'something-else' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).balanceMicroCents).toBeTypeOf('number');
  });
});

describe('the OpenAPI document', () => {
  it('is gzipped for a client that accepts it, the same document', async () => {
    const url = `${svc.api.url}/v1/openapi.json`;
    const plain = await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).json();
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      http
        .get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    });
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.body.length * 5).toBeLessThan(JSON.stringify(plain).length);
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(plain);
  });
});
