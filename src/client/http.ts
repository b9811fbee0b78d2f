import { GenjobsError } from './errors.ts';

/** How the client reaches the service. */
export interface ClientOptions {
  /** The api's address, e.g. `https://genjobs.example.com` (no trailing /v1). */
  baseUrl: string;
  /** An API key (`gjk_…`); the public catalog works without one. */
  apiKey?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Retries of a retryable answer (429, 503, network error) before giving up. Default 4. */
  maxRetries?: number;
  /** Longest wait between two retries, in ms. Default 30 s. */
  maxRetryDelayMs?: number;
  /** Waits `ms` (tests make it instant). Rejects when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Where an operation takes its key: the spec sends it as Bearer everywhere but the model listings. */
export type Credential = 'bearer' | 'x-api-key' | 'optional' | 'none';

export interface Call {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  credential: Credential;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Whether repeating the request is harmless: GETs, and POSTs carrying an Idempotency-Key. */
  idempotent?: boolean;
}

/** Sleeps unless aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The one place the client talks HTTP: adds the key where the operation wants it, turns
 * error answers into {@link GenjobsError}, and retries retryable ones (waiting what
 * Retry-After says, with a little jitter, else an exponential backoff with jitter). A request that is not
 * idempotent is retried only when the service answered (it refused it: nothing happened).
 */
export class Http {
  readonly o: ClientOptions;
  private readonly base: string;

  /** @throws TypeError for a baseUrl that is not an http(s) address: a mistake, not a network error. */
  constructor(o: ClientOptions) {
    const parsed = URL.canParse(o.baseUrl) ? new URL(o.baseUrl) : undefined;
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
      throw new TypeError(
        `genjobs client: baseUrl must be an http:// or https:// address, not ${JSON.stringify(o.baseUrl)}`,
      );
    }
    this.o = o;
    this.base = o.baseUrl.replace(/\/+$/, '');
  }

  url(path: string, query?: Record<string, string | number | undefined>): string {
    const u = new URL(this.base + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  headers(credential: Credential, extra: Record<string, string> = {}): Headers {
    const h = new Headers(extra);
    const key = this.o.apiKey;
    if (credential === 'x-api-key' && key) h.set('x-api-key', key);
    else if ((credential === 'bearer' || credential === 'optional') && key)
      h.set('authorization', `Bearer ${key}`);
    return h;
  }

  /** Sends the call (with retries) and answers the successful Response, body unread. */
  send(call: Call): Promise<Response> {
    return this.retrying(() => this.once(call), {
      idempotent: call.idempotent ?? false,
      signal: call.signal,
      to: this.base,
    });
  }

  /**
   * Makes a request (`request` sends it once) until it succeeds, as {@link send} does for the
   * service's own operations: for a request elsewhere too (an upload's PUT to its presigned
   * address, `to` its origin).
   */
  async retrying(
    request: () => Promise<Response>,
    o: { idempotent: boolean; signal?: AbortSignal; to: string },
  ): Promise<Response> {
    const max = this.o.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      let err: GenjobsError;
      try {
        const res = await request();
        if (res.ok || res.status === 204) return res;
        err = await GenjobsError.fromResponse(res);
      } catch (e) {
        if (e instanceof GenjobsError) throw e;
        if (o.signal?.aborted) throw o.signal.reason;
        err = new GenjobsError(`no answer from ${o.to}: ${String(e)}`, {
          status: 0,
          code: 'NETWORK_ERROR',
          retryable: true,
          cause: e,
        });
        // Without an answer, a non-idempotent request may have happened: never repeat it.
        if (!o.idempotent) throw err;
      }
      if (!err.retryable || attempt >= max) throw err;
      await (this.o.sleep ?? sleep)(this.delay(attempt, err), o.signal);
    }
  }

  /** Sends the call and parses its JSON answer. */
  async json<T>(call: Call): Promise<T> {
    const res = await this.send(call);
    return (await res.json()) as T;
  }

  private once(call: Call): Promise<Response> {
    const headers = this.headers(call.credential, call.headers);
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    return (this.o.fetch ?? fetch)(this.url(call.path, call.query), {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: call.signal,
    });
  }

  private delay(attempt: number, err: GenjobsError): number {
    const cap = this.o.maxRetryDelayMs ?? 30_000;
    // At least what Retry-After says, and up to a quarter more (a second at most): clients
    // throttled together do not all come back in the same instant.
    if (err.retryAfterSeconds !== undefined) {
      const wait = err.retryAfterSeconds * 1000;
      return Math.min(wait + Math.random() * Math.min(1_000, wait / 4), cap);
    }
    const base = Math.min(500 * 2 ** attempt, cap);
    return base / 2 + Math.random() * (base / 2);
  }
}
