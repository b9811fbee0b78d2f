import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_RANGES } from './address.ts';
import { type DeliveryOptions, deliverWebhook, targetRefusal, type WebhookMessage } from './deliver.ts';
import { nextDelivery, startDelivery } from './schedule.ts';
import { generateWebhookSecret } from './sign.ts';
import { makeTestTls } from './test-tls.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTPS receiver on a loopback address that records what it gets. */
interface Receiver {
  url: string;
  port: number;
  received: { headers: IncomingMessage['headers']; body: string }[];
  handle: Handler;
  server: Server;
}

const dir = mkdtempSync(join(tmpdir(), 'genjobs-webhook-tls-'));
let ca: string;
let tls: { key: Buffer; cert: Buffer };
const receivers: Receiver[] = [];

/** A CA and a server certificate for localhost, hooks.test, 127.0.0.1, 127.0.0.2 and ::1. */
async function makeCertificates(): Promise<void> {
  const made = await makeTestTls('DNS:localhost,DNS:hooks.test,IP:127.0.0.1,IP:127.0.0.2,IP:::1');
  ca = made.ca;
  tls = { key: Buffer.from(made.key), cert: Buffer.from(made.cert) };
  // A child process trusts it through NODE_EXTRA_CA_CERTS, which takes a file.
  writeFileSync(join(dir, 'ca.crt'), made.ca);
}

async function receiver(host = '127.0.0.1'): Promise<Receiver> {
  const handle: Handler = (_req, res) => res.end('ok');
  const r = { received: [], handle } as unknown as Receiver;
  r.server = createServer(tls, async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    r.received.push({ headers: req.headers, body });
    r.handle(req, res);
  });
  r.server.listen(0, host);
  await once(r.server, 'listening');
  r.port = (r.server.address() as AddressInfo).port;
  r.url = `https://${host}:${r.port}/hooks`;
  receivers.push(r);
  return r;
}

beforeAll(makeCertificates);
afterEach(() => {
  for (const r of receivers.splice(0)) {
    r.server.closeAllConnections();
    r.server.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secret = generateWebhookSecret();
const message = (url: string): WebhookMessage => ({
  url,
  id: 'msg_job-1',
  event: {
    type: 'job.completed',
    timestamp: '2030-01-01T00:00:00.000Z',
    data: { jobId: 'job-1', status: 'completed' },
  },
  secrets: [secret],
});
const trusting = (extra: Partial<DeliveryOptions> = {}): DeliveryOptions => ({
  now: Date.now,
  ca,
  allowPrivateTargets: true,
  ...extra,
});
const noConnection = () => {
  throw new Error('must not connect');
};

describe('webhook delivery to an HTTPS receiver', () => {
  it('POSTs the event as JSON with Standard Webhooks headers that standardwebhooks verifies', async () => {
    const r = await receiver();
    expect(await deliverWebhook(message(r.url), trusting())).toEqual({ kind: 'success', status: 200 });
    const [got] = r.received;
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['webhook-id']).toBe('msg_job-1');
    const verified = new Webhook(secret).verify(got?.body ?? '', got?.headers as Record<string, string>);
    expect(verified).toEqual(message(r.url).event);
  });

  it('retries a receiver that fails three times with the same webhook-id and records one success', async () => {
    const r = await receiver();
    const answers = [500, 503, 429, 204];
    r.handle = (_req, res) => {
      res.statusCode = answers[r.received.length - 1] ?? 500;
      if (res.statusCode === 503) res.setHeader('retry-after', '600');
      res.end();
    };
    let clock = Date.parse('2030-01-01T00:00:00Z');
    let status = startDelivery('msg_job-1', clock);
    const outcomes: string[] = [];
    while (status.state === 'pending') {
      clock = Date.parse(status.nextAttemptAt ?? '');
      const outcome = await deliverWebhook(message(r.url), trusting());
      outcomes.push(outcome.kind);
      status = nextDelivery(status, outcome, clock, () => 0.5);
    }
    expect(outcomes).toEqual(['http_error', 'http_error', 'http_error', 'success']);
    expect(status).toMatchObject({
      state: 'delivered',
      attempts: 4,
      lastResult: 'HTTP 204',
      deliveredAt: new Date(clock).toISOString(),
    });
    // 0 s, then 5 s, then 600 s (Retry-After beats 5 min), then 30 min.
    expect(clock - Date.parse('2030-01-01T00:00:00Z')).toBe(5_000 + 600_000 + 1_800_000);
    expect(new Set(r.received.map((x) => x.headers['webhook-id']))).toEqual(new Set(['msg_job-1']));
    for (const x of r.received)
      expect(() => new Webhook(secret).verify(x.body, x.headers as Record<string, string>)).not.toThrow();
  });

  it('reports 410 so that the schedule stops', async () => {
    const r = await receiver();
    r.handle = (_req, res) => res.writeHead(410).end();
    const outcome = await deliverWebhook(message(r.url), trusting());
    expect(outcome).toEqual({ kind: 'http_error', status: 410, retryAfter: undefined });
    expect(nextDelivery(startDelivery('m', 0), outcome, 0, Math.random).state).toBe('failed');
  });

  it('times out a receiver that never answers', async () => {
    const r = await receiver();
    r.handle = () => {};
    expect(await deliverWebhook(message(r.url), trusting({ timeoutMs: 300 }))).toEqual({ kind: 'timeout' });
  });

  it('stops reading an endless answer after the limit', async () => {
    const r = await receiver();
    r.handle = (_req, res) => {
      const chunk = Buffer.alloc(16 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {}
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    };
    const started = Date.now();
    expect(await deliverWebhook(message(r.url), trusting({ timeoutMs: 10_000 }))).toEqual({
      kind: 'success',
      status: 200,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    [
      'a closed port',
      async () => `https://127.0.0.1:${(await receiver()).port}/`.replace(/:\d+\//, ':1/'),
      'ECONNREFUSED',
    ],
    ['an untrusted certificate', async () => (await receiver()).url, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  ])('reports a network error for %s', async (name, url, code) => {
    const options = name === 'an untrusted certificate' ? trusting({ ca: undefined }) : trusting();
    expect(await deliverWebhook(message(await url()), options)).toEqual({ kind: 'network', message: code });
  });

  it('trusts a CA given in NODE_EXTRA_CA_CERTS without any option', async () => {
    const r = await receiver();
    const script = `
      import { deliverWebhook } from ${JSON.stringify(new URL('./deliver.ts', import.meta.url).href)};
      const outcome = await deliverWebhook(${JSON.stringify(message(r.url))}, { now: Date.now, allowPrivateTargets: true });
      console.log(JSON.stringify(outcome));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.crt') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    await once(child, 'exit');
    expect(JSON.parse(output)).toEqual({ kind: 'success', status: 200 });
  });

  it('reaches a host name through the injected resolver and checks the certificate against it', async () => {
    const r = await receiver();
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const outcome = await deliverWebhook(message(`https://hooks.test:${r.port}/x`), trusting({ resolve }));
    expect(outcome).toEqual({ kind: 'success', status: 200 });
  });
});

describe('webhook targets when private targets are not allowed', () => {
  const strict = (extra: Partial<DeliveryOptions> = {}): DeliveryOptions => ({ now: Date.now, ca, ...extra });

  it.each([
    ['loopback', 'https://127.0.0.1:{port}/'],
    ['IPv6 loopback', 'https://[::1]:{port}/'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]:{port}/'],
    ['the loopback name', 'https://localhost:{port}/'],
  ])('refuses %s and sends nothing', async (_, template) => {
    const r = await receiver();
    const outcome = await deliverWebhook(message(template.replace('{port}', String(r.port))), strict());
    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(
        /loopback (address .*|name), not public|loopback address .* is not public/,
      ),
    });
    expect(r.received).toEqual([]);
  });

  it.each([
    ['a private address', 'https://10.0.0.1/hook', {}],
    ['the metadata service', 'https://169.254.169.254/latest/meta-data/', {}],
    [
      'the metadata service, even with private targets allowed',
      'https://169.254.169.254/',
      { allowPrivateTargets: true },
    ],
    ['plain http', 'http://hooks.example.com/', {}],
    ['not a URL', 'hooks', {}],
  ])('refuses %s before connecting', async (_, url, extra) => {
    expect(await deliverWebhook(message(url), strict({ ...extra, transport: noConnection }))).toMatchObject({
      kind: 'refused',
    });
  });

  it('refuses a public-looking name that resolves to loopback at connect time (DNS rebinding)', async () => {
    const r = await receiver();
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const outcome = await deliverWebhook(message(`https://hooks.test:${r.port}/`), strict({ resolve }));
    expect(outcome).toEqual({ kind: 'refused', reason: 'hooks.test does not resolve to a public address' });
    expect(r.received).toEqual([]);
  });

  it('refuses at connect time even when name resolution is bypassed', async () => {
    const r = await receiver();
    // A name that passes the checks before connecting, and a connection straight to loopback.
    const unguarded: DeliveryOptions['transport'] = (url, options) =>
      request(new URL(url.href.replace('hooks.test', '127.0.0.1')), { ...options, lookup: undefined });
    const outcome = await deliverWebhook(
      message(`https://hooks.test:${r.port}/`),
      strict({ transport: unguarded }),
    );
    expect(outcome).toMatchObject({ kind: 'refused', reason: expect.stringContaining('loopback address') });
    expect(r.received).toEqual([]);
  });

  it('does not follow a redirect to loopback', async () => {
    const loopback = await receiver('127.0.0.1');
    const redirecting = await receiver('127.0.0.2');
    redirecting.handle = (_req, res) => res.writeHead(307, { location: loopback.url }).end();
    // Only the redirecting receiver's address is allowed, as a private deployment would list it.
    const outcome = await deliverWebhook(
      message(redirecting.url),
      strict({ allowedRanges: ['127.0.0.2/32'] }),
    );
    expect(outcome).toMatchObject({ kind: 'http_error', status: 307 });
    expect(redirecting.received).toHaveLength(1);
    expect(loopback.received).toEqual([]);
  });

  it('allows loopback in dev mode', async () => {
    const r = await receiver();
    expect(await deliverWebhook(message(r.url), strict({ allowedRanges: LOOPBACK_RANGES }))).toMatchObject({
      kind: 'success',
    });
  });

  it.each([
    ['https://hooks.example.com/x', undefined],
    ['https://93.184.216.34/x', undefined],
    ['https://[2606:4700::1111]/x', undefined],
    ['http://hooks.example.com/x', 'only https targets are allowed'],
    ['https://192.168.1.10/x', 'private address 192.168.1.10 is not public'],
    ['https://localhost:8443/x', 'localhost is a loopback name, not public'],
    ['https://LocalHost./x', 'localhost is a loopback name, not public'],
    ['https://api.localhost/x', 'api.localhost is a loopback name, not public'],
  ])('checks %s before connecting: %s', (url, reason) => {
    expect(targetRefusal(url, {})).toBe(reason);
  });

  it('allows the loopback names where loopback is allowed (dev mode)', () => {
    expect(targetRefusal('https://localhost:8443/x', { allowedRanges: LOOPBACK_RANGES })).toBeUndefined();
  });
});
