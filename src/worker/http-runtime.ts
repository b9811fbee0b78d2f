import type { OutputItem } from '../k8s/types.ts';
import type { RunContext } from './context.ts';
import { describeError, WorkerError } from './errors.ts';
import { rehostOutputs } from './rehost.ts';

/** Where and how to reach an upstream prediction server (the Cog HTTP protocol). */
export interface HttpRuntimeOptions {
  /** Base URL; predictions are POSTed to `{url}/predictions`. */
  url: string;
  /** Sent as `Authorization: Bearer`, to the server and to output URLs on its origin only. */
  token?: string;
  /** Pause between polls of a prediction still running. */
  pollIntervalMs?: number;
}

/** A Cog prediction, as far as we read it. */
interface Prediction {
  status: string;
  output?: unknown;
  error?: unknown;
  urls?: { get?: string; cancel?: string };
}

const POLL_TIMEOUT_MS = 30_000;
const RUNNING = new Set(['starting', 'processing']);

/**
 * Runs one job on an upstream prediction server: `POST {url}/predictions` with
 * `{"input": …}` and `Prefer: wait`, polling `urls.get` while the prediction runs, then
 * re-hosts its outputs in our blob store. Failed predictions become `GENERATION_FAILED`
 * with upstream's message; an unreachable or broken server becomes `UPSTREAM_ERROR`.
 */
export async function runHttp(options: HttpRuntimeOptions, ctx: RunContext): Promise<OutputItem[]> {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  let prediction = await call(ctx, options, 'POST', new URL('predictions', base).href, { input: ctx.input });
  // A poll answer may leave out the URLs the first answer gave.
  let urls = prediction.urls ?? {};
  while (RUNNING.has(prediction.status)) {
    const poll = urls.get;
    if (poll === undefined) {
      throw new WorkerError(
        'UPSTREAM_ERROR',
        `prediction is ${prediction.status} but the server gave no URL to poll`,
      );
    }
    const interval = options.pollIntervalMs ?? 1000;
    if (ctx.now() + interval >= ctx.deadline) {
      await cancel(ctx, options, urls.cancel);
      throw new WorkerError('TIMEOUT', `the prediction was still ${prediction.status} at the job's deadline`);
    }
    await ctx.sleep(interval, ctx.signal);
    prediction = await call(ctx, options, 'GET', new URL(poll, base).href, undefined, POLL_TIMEOUT_MS);
    urls = { ...urls, ...prediction.urls };
  }
  switch (prediction.status) {
    case 'succeeded':
      return rehostOutputs(ctx, prediction.output, { origin: new URL(base).origin, token: options.token });
    case 'failed':
      throw new WorkerError('GENERATION_FAILED', `the model failed: ${errorText(prediction.error)}`);
    case 'canceled':
    case 'aborted':
      throw new WorkerError('UPSTREAM_ERROR', 'the prediction was canceled on the upstream server');
    default:
      throw new WorkerError(
        'UPSTREAM_ERROR',
        `the prediction has unknown status ${JSON.stringify(prediction.status)}`,
      );
  }
}

async function call(
  ctx: RunContext,
  options: HttpRuntimeOptions,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  timeoutMs?: number,
): Promise<Prediction> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', prefer: 'wait' });
  // The token is for the prediction server; a poll URL elsewhere does not get it.
  if (options.token && new URL(url).origin === new URL(options.url).origin) {
    headers.authorization = `Bearer ${options.token}`;
  }
  const signal =
    timeoutMs === undefined ? ctx.signal : AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  // Clients read the job's message; the server's address and the raw error are for operators.
  const where = `prediction server ${new URL(url).origin}`;
  let response: Response;
  let text: string;
  try {
    response = await ctx.fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (signal.aborted)
      throw new WorkerError(
        'UPSTREAM_ERROR',
        `the model server did not answer within ${timeoutMs! / 1000} s`,
        {
          detail: `${where} did not answer within ${timeoutMs! / 1000} s`,
        },
      );
    throw new WorkerError('UPSTREAM_ERROR', 'the model server could not be reached', {
      detail: `${where} could not be reached (${describeError(error)})`,
    });
  }
  const json = parseJson(text);
  if (!response.ok) throw statusError(where, response.status, json, text);
  if (!isPrediction(json))
    throw new WorkerError('UPSTREAM_ERROR', 'the model server answered something other than a prediction', {
      detail: `${where} answered: ${text.slice(0, 300)}`,
    });
  return json;
}

// A 4xx other than auth and conflict is the model refusing this input: the user's problem,
// not ours, so it is a generation failure. The rest is the upstream server's problem.
function statusError(where: string, status: number, json: unknown, text: string): WorkerError {
  const detail = isRecord(json) && json.detail !== undefined ? errorText(json.detail) : text.slice(0, 300);
  if (status === 401 || status === 403)
    return new WorkerError(
      'UPSTREAM_ERROR',
      `the model server refused the service's credentials (HTTP ${status})`,
      {
        detail: `${where} answered HTTP ${status}: ${detail}`,
      },
    );
  // The model's own word on the input is the owner's to read.
  if (status >= 400 && status < 500 && status !== 409 && status !== 429) {
    return new WorkerError('GENERATION_FAILED', `the model rejected the input (HTTP ${status}): ${detail}`);
  }
  return new WorkerError('UPSTREAM_ERROR', `the model server answered HTTP ${status}`, {
    detail: `${where} answered HTTP ${status}: ${detail}`,
  });
}

async function cancel(ctx: RunContext, options: HttpRuntimeOptions, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  const target = new URL(url, options.url);
  const sameOrigin = target.origin === new URL(options.url).origin;
  const headers: Record<string, string> =
    options.token && sameOrigin ? { authorization: `Bearer ${options.token}` } : {};
  // Best effort: the job fails with TIMEOUT whether or not upstream hears about it.
  await ctx.fetch(target, { method: 'POST', headers, signal: AbortSignal.timeout(5000) }).catch(() => {});
}

function errorText(error: unknown): string {
  if (error === undefined || error === null || error === '') return 'no reason given';
  return (typeof error === 'string' ? error : JSON.stringify(error)).slice(0, 1000);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPrediction(value: unknown): value is Prediction {
  return (
    isRecord(value) && typeof value.status === 'string' && (value.urls === undefined || isRecord(value.urls))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
