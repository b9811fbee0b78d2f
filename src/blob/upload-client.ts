import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { networkReason } from '../client/http.ts';

/** Result of a worker's upload. */
export interface UploadedObject {
  key: string;
  size: number;
  etag: string | undefined;
}

/**
 * An upload the store refused or could not take. `retryable`: the same PUT may succeed
 * later (no answer, a 5xx, 408 or 429); a 4xx (a grant refused, a file too large) will not.
 */
export class UploadFailed extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UploadFailed';
    this.retryable = retryable;
  }
}

/**
 * How long one PUT may take before it counts as no answer (and is tried again by the
 * caller): a minute, and a second more per MiB of the file, so a store that hangs behind
 * the api does not hold a finished job until its runtime's timeout.
 */
export const uploadDeadlineMs = (size: number) => 60_000 + Math.ceil(size / 1_048_576) * 1_000;

/**
 * PUTs a local file to `<baseUrl>/<key>` with a prefix grant, streaming it (used by the
 * worker for its outputs), within {@link uploadDeadlineMs}. `baseUrl` is the api's files
 * router as the Pod reaches it, e.g. `http://genjobs-api.genjobs.svc:8080/files`. Throws
 * {@link UploadFailed} on no answer or a non-2xx one, with the status and problem detail in
 * the message.
 */
export async function uploadWithGrant(
  baseUrl: string,
  grant: string,
  key: string,
  filePath: string,
  contentType: string,
  fetchImpl: typeof fetch = fetch,
  deadlineMs?: number,
): Promise<UploadedObject> {
  const { size } = await stat(filePath);
  const signal = AbortSignal.timeout(deadlineMs ?? uploadDeadlineMs(size));
  let response: Response;
  try {
    response = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/${key}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${grant}`,
        'content-type': contentType,
        'content-length': String(size),
      },
      body: Readable.toWeb(createReadStream(filePath)) as ReadableStream<Uint8Array>,
      duplex: 'half',
      signal,
    } as RequestInit);
  } catch (error) {
    throw new UploadFailed(`upload of ${key} got no answer: ${networkReason(error)}`, true, { cause: error });
  }
  if (!response.ok) {
    const detail = await response.text().catch(() => '');
    const { status } = response;
    throw new UploadFailed(
      `upload of ${key} failed with HTTP ${status}: ${detail.slice(0, 500)}`,
      status >= 500 || status === 408 || status === 429,
    );
  }
  await response.body?.cancel();
  return { key, size, etag: response.headers.get('etag') ?? undefined };
}
