import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { Socket } from 'node:net';
import { getCACertificates } from 'node:tls';
import {
  guardedLookup,
  literalRefusal,
  type Resolver,
  refusalReason,
  type TargetPolicy,
  TargetRefusedError,
} from './address.ts';
import type { DeliveryOutcome } from './schedule.ts';
import { webhookHeaders } from './sign.ts';

/** The event kinds a job webhook carries. */
export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The JSON body of a webhook. */
export interface WebhookEvent {
  type: WebhookEventType;
  /** ISO 8601 time of the event (the job's completedAt), the same on every attempt. */
  timestamp: string;
  /** The job as GET /v1/jobs/{id} shows it. */
  data: unknown;
}

/** One webhook to deliver. */
export interface WebhookMessage {
  url: string;
  /** `webhook-id`: the same on every attempt, so receivers can de-duplicate. */
  id: string;
  event: WebhookEvent;
  /** The account's `whsec_` secrets: one, or two during a rotation. */
  secrets: readonly string[];
}

/** How attempts are made; the defaults suit production. */
export interface DeliveryOptions extends TargetPolicy {
  now: () => number;
  /** Whole attempt, connection to response body (default 15 s). */
  timeoutMs?: number;
  /** Response bytes read before the connection is dropped (default 64 KiB). */
  maxResponseBytes?: number;
  /** CA certificates trusted besides the default ones (NODE_EXTRA_CA_CERTS also works). */
  ca?: string | Buffer | Array<string | Buffer>;
  resolve?: Resolver;
  /** Makes the HTTPS request; tests replace it to prove nothing connects. */
  transport?: (url: URL, options: RequestOptions) => ClientRequest;
}

/** Why `url` may never be a webhook target under `policy`, checked before any connection. */
export function targetRefusal(url: string, policy: TargetPolicy): string | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed) return 'not a valid URL';
  if (parsed.protocol !== 'https:') return 'only https targets are allowed';
  // Names are checked by `lookup` at connect time.
  return literalRefusal(parsed.hostname, policy);
}

/**
 * Makes one delivery attempt: POSTs the signed event and reports how it went; every failure
 * of the target is an outcome, not an exception. Never follows a redirect (a 3xx is an
 * `http_error`) and reads at most `maxResponseBytes` of the answer.
 */
export async function deliverWebhook(
  message: WebhookMessage,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const refused = targetRefusal(message.url, options);
  if (refused) return { kind: 'refused', reason: refused };
  const body = JSON.stringify(message.event);
  const headers = {
    ...webhookHeaders(message.id, Math.floor(options.now() / 1000), body, message.secrets),
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'genjobs-webhooks/1',
  };
  const transport = options.transport ?? httpsRequest;
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise<DeliveryOutcome>((resolve) => {
    const finish = (outcome: DeliveryOutcome) => {
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    // agent: false: a fresh connection per attempt, so every attempt goes through `lookup`.
    const req = transport(new URL(message.url), {
      method: 'POST',
      headers,
      agent: false,
      lookup: guardedLookup(options, options.resolve),
      // `ca` alone would replace the default trust store; extra CAs add to it.
      ca: options.ca === undefined ? undefined : [...getCACertificates('default'), ...[options.ca].flat()],
    });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    req.on('socket', (socket: Socket) => {
      // A second guard on the connected address itself, whatever path led to it.
      socket.once('connect', () => {
        const reason = socket.remoteAddress
          ? refusalReason(socket.remoteAddress, options)
          : 'no remote address';
        if (reason) req.destroy(new TargetRefusedError(reason));
      });
    });
    req.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'];
      const outcome: DeliveryOutcome =
        status >= 200 && status < 300
          ? { kind: 'success', status }
          : { kind: 'http_error', status, retryAfter };
      drain(response, options.maxResponseBytes ?? 64 * 1024, () => finish(outcome));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof TargetRefusedError) finish({ kind: 'refused', reason: error.message });
      else finish({ kind: 'network', message: error.code ?? error.message });
    });
    req.end(body);
  });
}

/** Reads and discards the answer up to `limit` bytes, then calls `done` once. */
function drain(response: IncomingMessage, limit: number, done: () => void): void {
  let read = 0;
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      done();
    }
  };
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read >= limit) once();
  });
  response.on('end', once);
  response.on('error', once);
  response.on('aborted', once);
}
