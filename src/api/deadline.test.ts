import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../log.ts';
import { bodyDeadlines } from './deadline.ts';
import { problemHandler } from './problem.ts';
import { requestContext } from './request.ts';
import { listen, type RunningServer } from './server.ts';

let server: RunningServer;
beforeAll(async () => {
  const app = express();
  app.use(requestContext(silentLogger()));
  app.use(bodyDeadlines({ totalMs: 400, uploadTotalMs: 3_000, uploadIdleMs: 400 }));
  app.put('/files/*path', async (req, res) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    res.json({ bytes });
  });
  app.post('/v1/thing', express.json(), (req, res) => res.json(req.body));
  app.get('/slow', (_req, res) => void setTimeout(() => res.json({ ok: true }), 900));
  app.use(problemHandler());
  server = await listen(app, '127.0.0.1', 0, silentLogger());
});
afterAll(async () => server?.close(100));

/** Sends the request's head and `chunks` of its body, one every `gapMs`, and reads the whole answer. */
function send(
  head: string,
  chunks: string[],
  gapMs: number,
): Promise<{ status: number; text: string; ms: number }> {
  const { port } = server.server.address() as AddressInfo;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text, ms: Date.now() - started }),
    );
    socket.write(head);
    let i = 0;
    const next = () => {
      if (i >= chunks.length || socket.destroyed) return;
      socket.write(chunks[i++]!);
      setTimeout(next, gapMs);
    };
    next();
  });
}

describe('request body deadlines', () => {
  it('a JSON body that stalls is answered 408 REQUEST_TIMEOUT, a problem, and the connection closed', async () => {
    const r = await send(
      'POST /v1/thing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      ['{"a":'],
      0,
    );
    expect(r.status).toBe(408);
    expect(r.text).toMatch(/content-type: application\/problem\+json/i);
    expect(r.text).toContain('"code":"REQUEST_TIMEOUT"');
    expect(r.text).toContain('"retryable":true');
    expect(r.text).toContain('"title":"Request Timeout"');
    expect(r.text).toMatch(/connection: close/i);
  });

  it('an upload may take longer than a JSON body while its bytes keep coming', async () => {
    const chunks = Array.from({ length: 12 }, () => 'x'.repeat(10));
    const r = await send(
      'PUT /files/a HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\nContent-Length: 120\r\nConnection: close\r\n\r\n',
      chunks,
      100,
    );
    expect(r.status).toBe(200);
    expect(r.ms).toBeGreaterThan(1_000);
    expect(r.text).toContain('{"bytes":120}');
  });

  it('an upload whose bytes stop is answered 408 after the idle time', async () => {
    const r = await send(
      'PUT /files/b HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\nContent-Length: 120\r\n\r\n',
      ['x'.repeat(10)],
      0,
    );
    expect(r.status).toBe(408);
    expect(r.text).toContain('no bytes of the upload arrived');
  });

  it('a request without a body is never cut, however slow its answer', async () => {
    const r = await send('GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [], 0);
    expect(r.status).toBe(200);
    expect(r.text).toContain('{"ok":true}');
  });
});
