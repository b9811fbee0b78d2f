import { hostRefusal, type Resolver, systemResolver, type TargetPolicy } from '../webhooks/address.ts';
import { DownloadError } from './download.ts';
import { describeError } from './errors.ts';

export interface InputGuardOptions {
  /** URL prefixes fetched as they are: the service's own files (uploads as job input). */
  trusted: readonly string[];
  /** The same rule webhooks follow: public addresses only, unless allowed here. */
  policy: TargetPolicy;
  resolve?: Resolver;
  /** Redirects followed at most (each hop is checked again). */
  maxRedirects?: number;
}

/**
 * A fetch for user-supplied input URLs. A job's input is anybody's URL, and the worker
 * runs inside the cluster: without a check, an input could read a cluster-internal service
 * or the cloud metadata endpoint and hand the answer back as an output. Every hop (the
 * URL, then each redirect) must resolve to addresses the policy allows; the service's own
 * file URLs pass. The check runs before the connection, so a name that changes its answer
 * between the two (DNS rebinding) is not caught here: a NetworkPolicy on worker Pods is
 * the other half of the guard.
 */
export function guardedInputFetch(inner: typeof fetch, options: InputGuardOptions): typeof fetch {
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? 5;
  const trusted = (url: URL) =>
    url.protocol === 'data:' || options.trusted.some((t) => url.href.startsWith(t));

  async function check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    let reason: string | undefined;
    try {
      reason = await hostRefusal(url.hostname, options.policy, resolve);
    } catch (error) {
      throw new DownloadError(
        `could not be fetched: ${url.hostname} does not resolve (${describeError(error)})`,
      );
    }
    if (reason) throw new DownloadError(`is not fetched: ${reason} (inputs must be public URLs)`);
  }

  return async (input, init) => {
    let url = new URL(requestUrl(input));
    if (trusted(url)) return inner(input, init);
    for (let hop = 0; ; hop++) {
      await check(url);
      const response = await inner(url, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new DownloadError(`redirected more than ${maxRedirects} times`);
      url = new URL(location, url);
      if (trusted(url)) return inner(url, init);
    }
  };
}

/** The URL a fetch call names, whichever form it came in. */
export function requestUrl(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}
