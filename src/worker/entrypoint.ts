import { BlobSink } from './blob-sink.ts';
import { type WorkerEnv, workerMain } from './main.ts';

/**
 * `genjobs worker` as the Pod runs it. Besides the variables of {@link workerMain}:
 * `GENJOBS_BLOB_URL` (the api's /files as the Pod reaches it), `GENJOBS_BLOB_GRANT` (a
 * write grant for the job's prefix) and `GENJOBS_BLOB_PUBLIC_URL` (the base clients
 * download from).
 */
export function workerEntrypoint(env: WorkerEnv): Promise<number> {
  return workerMain(env, {
    makeSink: (job) => {
      const uploadUrl = env.GENJOBS_BLOB_URL;
      const grant = env.GENJOBS_BLOB_GRANT;
      if (!uploadUrl || !grant) throw new Error('GENJOBS_BLOB_URL and GENJOBS_BLOB_GRANT must be set');
      return new BlobSink({
        jobId: job.jobId,
        uploadUrl,
        grant,
        publicUrl: env.GENJOBS_BLOB_PUBLIC_URL ?? uploadUrl,
      });
    },
  });
}
