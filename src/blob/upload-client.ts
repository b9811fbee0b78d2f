import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Result of a worker's upload. */
export interface UploadedObject {
  key: string;
  size: number;
  etag: string | undefined;
}

/**
 * PUTs a local file to `<baseUrl>/<key>` with a prefix grant, streaming it (used by the
 * worker for its outputs). `baseUrl` is the api's files router as the Pod reaches it, e.g.
 * `http://genjobs-api.genjobs.svc:8080/files`. Throws on any non-2xx answer, with the
 * status and problem detail in the message.
 */
export async function uploadWithGrant(
  baseUrl: string,
  grant: string,
  key: string,
  filePath: string,
  contentType: string,
  fetchImpl: typeof fetch = fetch,
): Promise<UploadedObject> {
  const { size } = await stat(filePath);
  const response = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/${key}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${grant}`,
      'content-type': contentType,
      'content-length': String(size),
    },
    body: Readable.toWeb(createReadStream(filePath)) as ReadableStream<Uint8Array>,
    duplex: 'half',
  } as RequestInit);
  if (!response.ok) {
    const detail = await response.text().catch(() => '');
    throw new Error(`upload of ${key} failed with HTTP ${response.status}: ${detail.slice(0, 500)}`);
  }
  await response.body?.cancel();
  return { key, size, etag: response.headers.get('etag') ?? undefined };
}
