import { GenjobsError, notFromTheApi } from './errors.ts';

/** How the client reaches the service. */
export interface ClientOptions {
  /** The api's address, e.g. `https://genjobs.example.com` (a trailing /v1 is dropped). */
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
  /**
   * Longest time one request may take, from sending it to the end of its answer, in ms;
   * after it the request is abandoned as a network error (retried as those are). An upload's
   * PUT gets this plus a second per 32 KiB of the file, so a slow link is not cut while bytes
   * flow. Default 60 s.
   */
  timeoutMs?: number;
  /**
   * Longest silence of a job's event stream, in ms, after which it is abandoned and resumed
   * with Last-Event-ID (the service sends a heartbeat every 15 s). Default 45 s.
   */
  streamIdleTimeoutMs?: number;
}

/** The defaults of {@link ClientOptions.timeoutMs} and {@link ClientOptions.streamIdleTimeoutMs}. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 45_000;

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

/**
 * A signal that aborts `ms` after the last `restart()` (an idle or a total time limit, as the
 * caller restarts it), or when `parent` aborts. Nothing runs before the first `restart()`;
 * `clear()` stops the timer, the signal then follows `parent` only.
 */
export function deadline(
  ms: number,
  parent?: AbortSignal,
): { signal: AbortSignal; restart(): void; clear(): void } {
  const timeout = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    signal: parent ? AbortSignal.any([parent, timeout.signal]) : timeout.signal,
    restart: () => {
      clearTimeout(timer);
      timer = setTimeout(() => timeout.abort(new TimeoutError(ms)), ms);
    },
    clear: () => clearTimeout(timer),
  };
}

/** Why a {@link deadline} aborted. */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms / 1000} s`);
    this.name = 'TimeoutError';
  }
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
 * idempotent is retried only when the api itself refused it (its problem answer says
 * retryable: nothing happened) or something in front of it did with a 429; never after no
 * answer, nor after a proxy's 502/503/504, which it may give after passing the request on.
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
    // Paths are /v1/…: an address given with its /v1 (as the docs' paths show it) means the same.
    this.base = o.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
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

  /**
   * Sends the call (with retries) and answers the successful Response, body unread: the
   * time limit covers the answer's head only (the event stream reads its body on its own terms).
   */
  send(call: Call): Promise<Response> {
    return this.retrying((signal) => this.once(call, signal), this.retryOptions(call));
  }

  /**
   * Makes a request (`request` sends it once, with the signal it is given) until it succeeds,
   * as {@link send} does for the service's own operations: for a request elsewhere too (an
   * upload's PUT to its presigned address, `to` its origin). Each attempt has `timeoutMs`
   * (default {@link ClientOptions.timeoutMs}) for the request and for `read`, which takes the
   * successful answer (default: the Response itself, body unread).
   */
  async retrying<T = Response>(
    request: (signal: AbortSignal) => Promise<Response>,
    o: { idempotent: boolean; signal?: AbortSignal; to: string; timeoutMs?: number },
    read: (res: Response) => Promise<T> = async (res) => res as T,
  ): Promise<T> {
    const max = this.o.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      let err: GenjobsError;
      const limit = deadline(o.timeoutMs ?? this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS, o.signal);
      limit.restart();
      try {
        const res = await request(limit.signal);
        if (res.ok || res.status === 204) return await read(res);
        if (isRedirect(res)) throw redirected(res, o.to);
        err = await GenjobsError.fromResponse(res, attempt + 1);
      } catch (e) {
        if (e instanceof GenjobsError) throw e;
        if (o.signal?.aborted) throw o.signal.reason;
        err = new GenjobsError(`no answer from ${o.to}: ${networkReason(e)}`, {
          status: 0,
          code: 'NETWORK_ERROR',
          retryable: true,
          attempts: attempt + 1,
          cause: e,
        });
        // Without an answer, a non-idempotent request may have happened: never repeat it.
        if (!o.idempotent) throw err;
      } finally {
        limit.clear();
      }
      if (!err.retryable || attempt >= max) throw err;
      if (!o.idempotent && err.status !== 429 && notFromTheApi(err)) throw err;
      await (this.o.sleep ?? sleep)(this.delay(attempt, err), o.signal);
    }
  }

  /** Sends the call and parses its JSON answer; an answer that is not JSON is an `INVALID_RESPONSE`. */
  json<T>(call: Call): Promise<T> {
    return this.retrying(
      (signal) => this.once(call, signal),
      this.retryOptions(call),
      async (res) => {
        const text = await res.text();
        try {
          return JSON.parse(text) as T;
        } catch {
          // Not the service (a proxy's login page, a captive portal): retrying would not help.
          throw new GenjobsError(
            `the answer from ${this.base} is not JSON (is that the genjobs api?): ${JSON.stringify(text.slice(0, 100))}`,
            {
              status: res.status,
              code: 'INVALID_RESPONSE',
              requestId: res.headers.get('x-request-id') ?? undefined,
              retryable: false,
            },
          );
        }
      },
    );
  }

  private retryOptions(call: Call) {
    return { idempotent: call.idempotent ?? false, signal: call.signal, to: this.base };
  }

  private once(call: Call, signal: AbortSignal): Promise<Response> {
    const headers = this.headers(call.credential, call.headers);
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    return (this.o.fetch ?? fetch)(this.url(call.path, call.query), {
      // Never followed: fetch would drop the key on a hop to another origin and turn a POST
      // into a GET, and the api's answer would blame the key or the method (see redirected).
      redirect: 'manual',
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
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

/** A 3xx, or what a browser makes of one under `redirect: 'manual'` (an opaque answer, status 0). */
function isRedirect(res: Response): boolean {
  return res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400);
}

/** The error for a redirect: the address to configure instead, when the answer tells it. */
function redirected(res: Response, to: string): GenjobsError {
  const location = res.headers.get('location');
  let where = 'elsewhere';
  if (location && URL.canParse(location, res.url || to)) {
    const target = new URL(location, res.url || to);
    // The operation's own path: what was asked, less the path of the address configured.
    const prefix = URL.canParse(to) ? new URL(to).pathname.replace(/\/+$/, '') : '';
    const path = res.url && URL.canParse(res.url) ? new URL(res.url).pathname : '';
    const asked = path.startsWith(prefix) ? path.slice(prefix.length) : path;
    // The same path at another address (http → https, a new host): that address is the base.
    const base =
      asked && target.pathname.endsWith(asked)
        ? target.href.slice(0, target.href.indexOf(target.pathname) + target.pathname.length - asked.length)
        : undefined;
    where = `to ${target.href}${base ? `: the api is at ${base}` : ''}`;
  }
  return new GenjobsError(
    `${to} redirects (HTTP ${res.status || 'redirect'}) ${where}; give the client the address the api is at (GENJOBS_URL for the CLI): a request is not sent on, since it would lose its key and, for a POST, its method`,
    { status: res.status, code: 'REDIRECTED', retryable: false },
  );
}

/**
 * Why a request got no answer, with what fetch keeps in its cause (`fetch failed` alone says
 * nothing): `fetch failed: connect ECONNREFUSED 127.0.0.1:1`, a certificate's problem and code.
 */
export function networkReason(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e instanceof TimeoutError) return e.message;
  const cause = e.cause as (Error & { code?: string; errors?: Error[] }) | undefined;
  if (!(cause instanceof Error)) return e.message;
  // A connection to each of a name's addresses failed: an AggregateError with an empty message.
  const detail = cause.message || cause.errors?.[0]?.message || '';
  const code = cause.code && !detail.includes(cause.code) ? ` (${cause.code})` : '';
  return `${e.message}: ${detail}${code}`;
}

/**
 * A path segment made of a caller's id: refused when empty, `.` or `..`, which a URL would
 * resolve to another endpoint (`/v1/jobs/` is the job list), before any request.
 * @throws TypeError
 */
export function segment(what: string, value: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new TypeError(`genjobs client: ${what} cannot be ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}
