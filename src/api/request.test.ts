import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { loggerOptions, silentLogger } from '../log.ts';
import { problemHandler } from './problem.ts';
import { requestContext } from './request.ts';
import { listen, type RunningServer } from './server.ts';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

/** An app with a read, a write and a refusal, whose `request` lines land in `lines` at `level`. */
async function app(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(loggerOptions('api', level), { write: (l: string) => lines.push(JSON.parse(l)) });
  const a = express();
  a.use(requestContext(log));
  a.get('/v1/thing', (_req, res) => res.json({ ok: true }));
  a.post('/v1/thing', (_req, res) => res.json({ ok: true }));
  a.use((req, _res, next) => next(new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`)));
  a.use(problemHandler());
  server = await listen(a, '127.0.0.1', 0, silentLogger());
  const call = async (method: string, path: string) => {
    const res = await fetch(`${server!.url}${path}`, { method });
    await res.arrayBuffer();
    return res.headers.get('x-request-id');
  };
  const requestLines = () => lines.filter((l) => l.msg === 'request');
  return { call, requestLines };
}

describe('the request log line', () => {
  it('is at info for writes and refusals, at debug for reads that succeed', async () => {
    const { call, requestLines } = await app('info');
    await call('GET', '/v1/thing');
    await call('HEAD', '/v1/thing');
    const wrote = await call('POST', '/v1/thing');
    const missing = await call('GET', '/v1/none');
    // The line is written when the response has finished: let the event loop get there.
    await new Promise((r) => setTimeout(r, 20));
    expect(requestLines().map((l) => [l.requestId, l.method, l.status, l.level])).toEqual([
      [wrote, 'POST', 200, 'info'],
      [missing, 'GET', 404, 'info'],
    ]);
  });

  it('shows every read at LOG_LEVEL=debug', async () => {
    const { call, requestLines } = await app('debug');
    const read = await call('GET', '/v1/thing');
    await new Promise((r) => setTimeout(r, 20));
    expect(requestLines()).toEqual([
      expect.objectContaining({
        requestId: read,
        method: 'GET',
        status: 200,
        level: 'debug',
        route: '/v1/thing',
        peer: '127.0.0.1',
      }),
    ]);
  });
});
