import { BlobSink } from './blob-sink.ts';
import { guardedInputFetch, requestUrl } from './input-guard.ts';
import { type WorkerEnv, workerMain } from './main.ts';

/**
 * `genjobs worker` as the Pod runs it. Besides the variables of {@link workerMain}:
 * `GENJOBS_BLOB_URL` (the api's /files as the Pod reaches it), `GENJOBS_BLOB_GRANT` (a
 * write grant for the job's prefix), `GENJOBS_BLOB_PUBLIC_URL` (the base clients
 * download from) and `GENJOBS_INPUT_ALLOW_PRIVATE` (`true`: input URLs may name private
 * addresses too).
 */
export function workerEntrypoint(env: WorkerEnv): Promise<number> {
  const uploadUrl = env.GENJOBS_BLOB_URL;
  const publicUrl = env.GENJOBS_BLOB_PUBLIC_URL ?? uploadUrl;
  const files = uploadUrl && publicUrl ? inClusterFetch(publicUrl, uploadUrl) : fetch;
  // The service's own files (an upload's fileUrl) live at a cluster-internal address.
  const own = [publicUrl, uploadUrl].flatMap((base) => (base ? [`${base.replace(/\/+$/, '')}/`] : []));
  return workerMain(env, {
    fetch: files,
    fetchInput: guardedInputFetch(files, {
      trusted: own,
      policy: { allowPrivateTargets: env.GENJOBS_INPUT_ALLOW_PRIVATE === 'true' },
    }),
    ownFile: (url) => own.some((base) => url.startsWith(base)),
    makeSink: (job) => {
      const grant = env.GENJOBS_BLOB_GRANT;
      if (!uploadUrl || !grant) throw new Error('GENJOBS_BLOB_URL and GENJOBS_BLOB_GRANT must be set');
      return new BlobSink({ jobId: job.jobId, uploadUrl, grant, publicUrl: publicUrl ?? uploadUrl });
    },
  });
}

/**
 * A fetch that reads the service's own files (an upload's fileUrl given as job input) from
 * the in-cluster address rather than the public one: a Pod may not reach the ingress or
 * CDN name clients use, and the round trip through it is wasted anyway.
 */
export function inClusterFetch(
  publicBase: string,
  internalBase: string,
  inner: typeof fetch = fetch,
): typeof fetch {
  const from = `${publicBase.replace(/\/+$/, '')}/`;
  const to = `${internalBase.replace(/\/+$/, '')}/`;
  return (input, init) => {
    const url = requestUrl(input);
    return inner(url.startsWith(from) ? to + url.slice(from.length) : input, init);
  };
}
