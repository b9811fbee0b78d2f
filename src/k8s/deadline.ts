import {
  createConfiguration,
  type HttpLibrary,
  type KubeConfig,
  Observable,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
} from '@kubernetes/client-node';
import { ApiserverUnavailable } from './errors.ts';
import type { ApiserverHealth } from './health.ts';

/** How long one apiserver call may take before it is given up. */
export interface Deadlines {
  /** Reads of one object and every write. */
  requestMs: number;
  /** Reads of a whole collection (an informer's initial list can be large). */
  listMs: number;
}

/**
 * For connections made without the service's configuration (admin commands, tests,
 * benchmarks): generous, a bound against a hang rather than a service level. The api and
 * the controller take theirs from GENJOBS_KUBE_TIMEOUT and GENJOBS_KUBE_LIST_TIMEOUT.
 */
export const DEFAULT_DEADLINES: Deadlines = { requestMs: 30_000, listMs: 120_000 };

/**
 * Whether a request reads a collection rather than one object: a GET whose path, after
 * the group prefix and an optional `namespaces/<ns>`, names a resource and no object.
 */
export function isCollectionRead(method: string, url: string): boolean {
  if (method.toUpperCase() !== 'GET') return false;
  const path = new URL(url, 'https://x').pathname.split('/').filter(Boolean);
  let rest: string[];
  if (path[0] === 'api') rest = path.slice(2);
  else if (path[0] === 'apis') rest = path.slice(3);
  else return false;
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  return rest.length === 1;
}

/**
 * An HTTP library for the generated API clients that gives every call a deadline and
 * reports each outcome to the apiserver's health. Without a deadline a frozen apiserver
 * (a stopped process, a partition) keeps a call waiting for as long as TCP does, and the
 * HTTP request that made it waits with it, past any client's patience. A call that times
 * out or cannot connect becomes {@link ApiserverUnavailable}; the apiserver's own answers
 * (2xx-4xx) pass as they are.
 */
export class BoundedHttpLibrary implements HttpLibrary {
  private readonly inner: HttpLibrary;
  private readonly deadlines: Deadlines;
  private readonly health: ApiserverHealth;

  constructor(inner: HttpLibrary, deadlines: Deadlines, health: ApiserverHealth) {
    this.inner = inner;
    this.deadlines = deadlines;
    this.health = health;
  }

  send(request: RequestContext): Observable<ResponseContext> {
    const method = String(request.getHttpMethod());
    const ms = isCollectionRead(method, request.getUrl()) ? this.deadlines.listMs : this.deadlines.requestMs;
    const timeout = AbortSignal.timeout(ms);
    const own = request.getSignal();
    // The signal also bounds reading the body, which happens after this promise resolves.
    request.setSignal(own ? AbortSignal.any([own, timeout]) : timeout);
    const what = `${method} ${new URL(request.getUrl()).pathname}`;
    const unavailable = (err: unknown) => {
      const reason = timeout.aborted
        ? `${what} had no answer within ${ms} ms`
        : `${what} failed: ${causeOf(err)}`;
      this.health.failed(reason);
      return new ApiserverUnavailable(reason, Math.max(1, Math.ceil(this.deadlines.requestMs / 1000)), err);
    };
    const sent = this.inner
      .send(request)
      .toPromise()
      .then(
        (response) => {
          // 5xx: the apiserver answered but could not serve (its storage is away, it is overloaded).
          if (response.httpStatusCode >= 500)
            this.health.failed(`${what} answered ${response.httpStatusCode}`);
          else this.health.succeeded();
          // The body is read later, under the same deadline: a stall there is the same outage.
          const body = response.body;
          response.body = {
            text: () =>
              body.text().catch((err: unknown) => Promise.reject(own?.aborted ? err : unavailable(err))),
            binary: () =>
              body.binary().catch((err: unknown) => Promise.reject(own?.aborted ? err : unavailable(err))),
            stream: () => body.stream(),
          };
          return response;
        },
        (err: unknown) => {
          throw own?.aborted ? err : unavailable(err);
        },
      );
    return new Observable(sent);
  }
}

/** What a failed call ran into (a connection refused, a reset), for the health's reason. */
export function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/**
 * The configuration of one generated API client for a KubeConfig, as `makeApiClient`
 * builds it, but sending through a {@link BoundedHttpLibrary}.
 */
export function boundedConfiguration(kc: KubeConfig, deadlines: Deadlines, health: ApiserverHealth) {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  const inner = createConfiguration().httpApi;
  return createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: new BoundedHttpLibrary(inner, deadlines, health),
    promiseMiddleware: [
      {
        pre: async (ctx) => {
          ctx.setHeaderParam('User-Agent', 'genjobs');
          return ctx;
        },
        post: async (ctx) => ctx,
      },
    ],
  });
}
