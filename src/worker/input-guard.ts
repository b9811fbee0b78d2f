import { Agent, fetch as undiciFetch } from 'undici';
import {
  guardedLookup,
  hostRefusal,
  NOT_PUBLIC_NAME,
  type Resolver,
  systemResolver,
  type TargetPolicy,
  TargetRefusedError,
} from '../webhooks/address.ts';
import { DownloadError } from './download.ts';

export interface InputGuardOptions {
  /** URL prefixes fetched as they are: the service's own files (uploads as job input). */
  trusted: readonly string[];
  /** The same rule webhooks follow: public addresses only, unless allowed here. */
  policy: TargetPolicy;
  resolve?: Resolver;
  /** Redirects followed at most (each hop is checked again). */
  maxRedirects?: number;
}

const PUBLIC_ONLY = '(inputs must be public URLs)';

/**
 * A fetch for user-supplied input URLs. A job's input is anybody's URL, and the worker
 * runs inside the cluster: without a check, an input could read a cluster-internal service
 * or the cloud metadata endpoint and hand the answer back as an output. Every hop (the
 * URL, then each redirect) must resolve to addresses the policy allows; the service's own
 * file URLs pass, though where they redirect is checked. A name is checked twice: before
 * the request, for a clear message, and by the connection's own `lookup`, so the address
 * checked is the address connected to and a name that changes its answer in between (DNS
 * rebinding) is refused. The chart's NetworkPolicy on worker Pods is the cluster's half.
 */
export function guardedInputFetch(inner: typeof fetch, options: InputGuardOptions): typeof fetch {
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? 5;
  // One pool for the worker's life: every new connection goes through the guarded lookup.
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(options.policy, resolve) } });
  const trusted = (url: URL) =>
    url.protocol === 'data:' || options.trusted.some((t) => url.href.startsWith(t));

  async function check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    // A name that does not resolve is told as one that resolves to an internal address:
    // the cluster's DNS is not the client's business (its error names the set-up).
    const reason = await hostRefusal(url.hostname, options.policy, resolve).catch(() =>
      NOT_PUBLIC_NAME(url.hostname),
    );
    if (reason) throw new DownloadError(`is not fetched: ${reason} ${PUBLIC_ONLY}`);
  }

  async function send(url: URL, init: RequestInit | undefined): Promise<Response> {
    try {
      const answer = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'manual',
        dispatcher,
      });
      return answer as unknown as Response;
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (cause instanceof TargetRefusedError)
        throw new DownloadError(`is not fetched: ${cause.message} ${PUBLIC_ONLY}`);
      throw error;
    }
  }

  return async (input, init) => {
    let url = new URL(requestUrl(input));
    for (let hop = 0; ; hop++) {
      const own = trusted(url);
      if (!own) await check(url);
      const response = own ? await inner(url, { ...init, redirect: 'manual' }) : await send(url, init);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new DownloadError(`redirected more than ${maxRedirects} times`);
      url = new URL(location, url);
    }
  };
}

/** The URL a fetch call names, whichever form it came in. */
export function requestUrl(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}
