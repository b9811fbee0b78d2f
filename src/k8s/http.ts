import type { RequestOptions } from 'node:https';
import { createSecureContext } from 'node:tls';
import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { Agent, type Dispatcher, request } from 'undici';
import type { ClusterClock } from './clock.ts';
import { causeOf, type Deadlines } from './deadline.ts';
import { ApiserverUnavailable } from './errors.ts';
import type { ApiserverHealth } from './health.ts';

/** How long the credentials of the kubeconfig are reused before they are read again (a mounted token rotates). */
const CREDENTIALS_TTL_MS = 10_000;

/** An answer of the apiserver outside 2xx: its HTTP code and its Status object as text, as client-node throws them. */
export class KubeStatusError extends Error {
  readonly code: number;
  readonly body: string;

  constructor(method: string, path: string, code: number, body: string) {
    super(`${method} ${path} answered ${code}: ${body.slice(0, 300)}`);
    this.name = 'KubeStatusError';
    this.code = code;
    this.body = body;
  }
}

export interface KubeRequest {
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Default application/json; a merge patch names application/merge-patch+json. */
  contentType?: string;
  /** A read of a whole collection: the longer deadline (an informer's first list can be large). */
  collection?: boolean;
}

interface Credentials {
  headers: Record<string, string>;
  dispatcher: Dispatcher | undefined;
  /** For a DELETE with a body (preconditions), see {@link Pools}. */
  deleteDispatcher: Dispatcher | undefined;
  at: number;
}

/**
 * The connections to the apiserver. undici closes an HTTP/1.1 connection after a request
 * whose method does not expect a body carries one (a DELETE with preconditions): each such
 * delete would cost the next call a new TLS handshake, on both sides. Those go over one
 * HTTP/2 connection instead, where a request is a stream and the connection stays.
 */
interface Pools {
  key: string;
  http1: Agent;
  deletes: Agent;
}

/** Kept-alive connections to the apiserver per process: enough for the busiest burst of calls. */
const CONNECTIONS = 64;
/**
 * How long an idle connection is kept (undici's default is 4 s): the controller's calls come
 * in bursts, and each connection opened again cost a TLS handshake. Below kube-apiserver's
 * own idle timeout (90 s), as client-go keeps them.
 */
const KEEP_ALIVE_MS = 60_000;

/**
 * A lean JSON client of the apiserver for the calls on the service's hot paths (creating,
 * reading, writing and deleting jobs, uploads, accounts and Pods): undici's `request` over
 * kept-alive HTTP/1.1 connections (undici's HTTP/2 client cost a quarter more CPU per call,
 * bench), with the credentials worked out once every few seconds rather than per call.
 * client-node's generated clients read the kubeconfig's certificate files, build a WHATWG
 * fetch and run the body through its type serializer on
 * every call: a third of a submit's CPU in the api, where the apiserver's own share of the
 * machine is what bounds throughput. Every call has the same deadline and reports to the
 * same health as the generated clients' calls (deadline.ts), and errors have the same
 * shape (`code`, and the Status as text in `body`), so errors.ts reads both.
 */
export class KubeHttp {
  private readonly kc: KubeConfig;
  private readonly server: string;
  private readonly deadlines: Deadlines;
  private readonly health: ApiserverHealth;
  private readonly clock: ClusterClock | undefined;
  private credentials: Credentials | undefined;
  /** The pools, made from the kubeconfig's TLS settings (undefined: through a proxy, the kubeconfig's own). */
  private pools: Pools | undefined;

  constructor(kc: KubeConfig, deadlines: Deadlines, health: ApiserverHealth, clock?: ClusterClock) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    this.kc = kc;
    this.server = cluster.server.replace(/\/$/, '');
    this.deadlines = deadlines;
    this.health = health;
    this.clock = clock;
  }

  private async auth(): Promise<Credentials> {
    const now = Date.now();
    if (this.credentials && now - this.credentials.at < CREDENTIALS_TTL_MS) return this.credentials;
    const ctx = new RequestContext(this.server, HttpMethod.GET);
    await this.kc.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.getHeaders())) headers[k.toLowerCase()] = v;
    const pools = await this.connections();
    const own = ctx.getDispatcher() as Dispatcher | undefined;
    this.credentials = {
      headers,
      dispatcher: pools?.http1 ?? own,
      deleteDispatcher: pools?.deletes ?? own,
      at: now,
    };
    return this.credentials;
  }

  /**
   * The pools with the kubeconfig's TLS settings (made again only if they change: a rotated
   * client certificate), or undefined when the kubeconfig goes through a proxy, which its
   * own dispatcher handles.
   */
  private async connections(): Promise<Pools | undefined> {
    const https: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(https);
    const options = this.kc.createDispatcherOptions(this.kc.getCurrentCluster(), {
      ca: https.ca,
      cert: https.cert,
      key: https.key,
      ...(https.rejectUnauthorized !== undefined ? { rejectUnauthorized: https.rejectUnauthorized } : {}),
      ...(https.servername !== undefined ? { servername: https.servername } : {}),
    });
    if (options.type !== 'agent' && options.type !== 'none') return undefined;
    const connect = options.type === 'agent' ? options.connect : {};
    const key = JSON.stringify(connect);
    if (this.pools?.key !== key) {
      void this.pools?.http1.close();
      void this.pools?.deletes.close();
      // One TLS context for every connection: made per connection, it parses the CA and the
      // client certificate again each time.
      const {
        ca,
        cert,
        key: clientKey,
        pfx,
        passphrase,
        ...socket
      } = connect as typeof connect & {
        pfx?: string | Buffer;
        passphrase?: string;
      };
      const tls =
        options.type === 'agent'
          ? { ...socket, secureContext: createSecureContext({ ca, cert, key: clientKey, pfx, passphrase }) }
          : socket;
      const keepAlive = { keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS };
      // A call's deadline does not reach a connection being opened: a call queued behind a
      // TLS handshake with a frozen apiserver (its kernel accepts the TCP connection) waited
      // for undici's own 10 s connect timeout, whatever its deadline. So the handshake gets
      // the call's deadline too.
      const opening = { ...tls, timeout: Math.min(this.deadlines.requestMs, 10_000) };
      this.pools = {
        key,
        http1: new Agent({ connect: opening, allowH2: false, connections: CONNECTIONS, ...keepAlive }),
        deletes: new Agent({ connect: opening, allowH2: true, connections: 1, ...keepAlive }),
      };
    }
    return this.pools;
  }

  /**
   * Opens a streaming GET (a watch): resolves with the status and the body as a stream once
   * the headers are in. The caller bounds it (`signal`); a refused connection rejects.
   */
  async stream(path: string, query: KubeRequest['query'], signal: AbortSignal) {
    const { headers, dispatcher } = await this.auth();
    const res = await request(this.server + path + queryString(query), {
      method: 'GET',
      headers: { ...headers, accept: 'application/json', 'user-agent': 'genjobs' },
      dispatcher,
      signal,
    });
    if (res.statusCode === 401) this.credentials = undefined;
    return res;
  }

  /** One call; resolves with the parsed JSON answer (undefined for an empty one). */
  async request<T>(method: string, path: string, options: KubeRequest = {}): Promise<T> {
    const text = await this.call(method, path, options, true);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * One call whose answer nobody reads (a Pod created or deleted: the cache brings the
   * object): the body is drained, not decoded and parsed (a Pod is 5–6 KB of JSON with its
   * managedFields, parsed only to be dropped). Errors are the same as {@link request}'s.
   */
  async send(method: string, path: string, options: KubeRequest = {}): Promise<void> {
    await this.call(method, path, options, false);
  }

  /** The call behind both: the answer's text when `read`, else '' (a failed call's text is always read for its error). */
  private async call(method: string, path: string, options: KubeRequest, read: boolean): Promise<string> {
    const credentials = await this.auth();
    const { headers } = credentials;
    const ms = options.collection ? this.deadlines.listMs : this.deadlines.requestMs;
    const signal = AbortSignal.timeout(ms);
    const url = this.server + path + queryString(options.query);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const dispatcher =
      method === 'DELETE' && body !== undefined ? credentials.deleteDispatcher : credentials.dispatcher;
    let status: number;
    let text = '';
    const sentAt = this.clock?.localNow() ?? 0;
    try {
      const res = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers: {
          ...headers,
          accept: 'application/json',
          'user-agent': 'genjobs',
          ...(body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' }),
        },
        body,
        dispatcher,
        signal,
      });
      status = res.statusCode;
      this.clock?.observe(res.headers.date as string | undefined, sentAt, this.clock.localNow());
      // Read under the same deadline: a body that stalls is the same outage as no answer.
      if (read || status >= 300) text = await res.body.text();
      else await res.body.arrayBuffer();
    } catch (err) {
      const reason = signal.aborted
        ? `${method} ${path} had no answer within ${ms} ms`
        : `${method} ${path} failed: ${causeOf(err)}`;
      this.health.failed(reason);
      throw new ApiserverUnavailable(reason, Math.max(1, Math.ceil(this.deadlines.requestMs / 1000)), err);
    }
    if (status >= 500) this.health.failed(`${method} ${path} answered ${status}`);
    else this.health.succeeded();
    // A token that expired or was rotated: read the credentials again before the next call.
    if (status === 401) this.credentials = undefined;
    if (status >= 300) throw new KubeStatusError(method, path, status, text);
    return text;
  }
}

function queryString(query: KubeRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
