import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { Job } from '../client/index.ts';

const EXTENSIONS: Record<string, string> = {
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'audio/mpeg': '.mp3',
  'audio/wav': '.wav',
  'text/plain': '.txt',
};

/**
 * Downloads every output of a finished job into `dir` as `<jobId>[-n].<ext>` (the
 * extension from the answer's content type, else the URL's), streaming to disk.
 * Answers the paths written.
 */
export async function downloadOutputs(job: Job, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const [i, item] of (job.outputs ?? []).entries()) {
    const res = await fetch(item.url);
    if (!res.ok || !res.body) throw new Error(`downloading ${item.url} answered ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const ext = EXTENSIONS[type] ?? (extname(new URL(item.url).pathname) || '');
    const path = join(dir, `${job.jobId}${i > 0 ? `-${i}` : ''}${ext}`);
    await pipeline(Readable.fromWeb(res.body as WebStream<Uint8Array>), createWriteStream(path));
    paths.push(path);
  }
  return paths;
}
