import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';

/**
 * Why a download failed, in words fit for a job's error message; `status` when the server
 * answered. `retryable`: the same download may work later (no answer, a 5xx, 408 or 429),
 * not a refusal or a file that will never fit.
 */
export class DownloadError extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(message: string, status?: number, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, options);
    this.name = 'DownloadError';
    this.status = status;
    this.retryable =
      options.retryable ?? (status !== undefined && (status >= 500 || status === 408 || status === 429));
  }
}

export interface DownloadOptions {
  fetch: typeof fetch;
  /** The job's signal: its abort is passed through untouched, so the caller reports a timeout. */
  signal: AbortSignal;
  /** Time allowed for this one download. */
  timeoutMs: number;
  maxBytes: number;
  headers?: Record<string, string>;
}

export interface Downloaded {
  /** The media type without parameters, lower case; '' when the server sent none. */
  contentType: string;
  bytes: number;
}

const SCHEMES = new Set(['http:', 'https:', 'data:']);

/**
 * Streams `url` (http, https or a data: URI) into `file`, never holding more than a chunk
 * in memory and stopping as soon as it exceeds `maxBytes`.
 */
export async function downloadToFile(
  url: string,
  file: string,
  options: DownloadOptions,
): Promise<Downloaded> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DownloadError('is not a valid URL');
  }
  if (!SCHEMES.has(parsed.protocol)) throw new DownloadError(`has unsupported scheme ${parsed.protocol}`);
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  try {
    const response = await options.fetch(parsed, { signal, headers: options.headers, redirect: 'follow' });
    if (!response.ok) {
      await response.body?.cancel();
      throw new DownloadError(`answered HTTP ${response.status}`, response.status);
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > options.maxBytes) {
      await response.body?.cancel();
      throw new DownloadError(`is larger than ${options.maxBytes} bytes (${declared})`);
    }
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(
          bytes > options.maxBytes ? new DownloadError(`is larger than ${options.maxBytes} bytes`) : null,
          chunk,
        );
      },
    });
    const body = response.body ? Readable.fromWeb(response.body as ReadableStream) : Readable.from([]);
    await pipeline(body, limit, createWriteStream(file), { signal });
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    return { contentType, bytes };
  } catch (error) {
    if (error instanceof DownloadError || options.signal.aborted) throw error;
    if (signal.aborted)
      throw new DownloadError(`did not answer within ${options.timeoutMs / 1000} s`, undefined, {
        retryable: true,
      });
    throw new DownloadError(`could not be fetched (${failureCode(error)})`, undefined, {
      cause: error,
      retryable: true,
    });
  }
}

/**
 * A network failure as its code (ECONNREFUSED, UND_ERR_SOCKET): the message behind it names
 * the address connected to, which belongs to the cluster, not to the job's owner who reads it.
 */
function failureCode(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'network error';
}

/** A URL fit for a message: data: URIs shortened, query strings (often signatures) dropped. */
export function displayUrl(url: string): string {
  if (url.startsWith('data:')) return `${url.slice(0, Math.max(5, url.indexOf(',')))},…`;
  try {
    const parsed = new URL(url);
    // A scheme without an origin (file:, blob:) reads "null" as one: its host then.
    const origin = parsed.origin === 'null' ? `${parsed.protocol}//${parsed.host}` : parsed.origin;
    return `${origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return url.length > 100 ? `${url.slice(0, 100)}…` : url;
  }
}
