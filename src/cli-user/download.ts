import { constants, createWriteStream } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { networkReason } from '../client/http.ts';
import type { Job } from '../client/index.ts';
import { fileError, UsageError } from './input.ts';

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
 * Makes the folder the outputs will go to, or refuses it (a usage mistake): checked before
 * the job is submitted, not once it has run and been paid for.
 */
export async function prepareDownloadDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot save into --download ${dir}: ${fileError(err)}`);
  }
}

/** Why a finished job's outputs could not be saved (a download or a write failed). */
export class SaveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SaveError';
  }
}

/**
 * Downloads every output of a finished job into `dir` as `<jobId>[-n].<ext>` (the
 * extension from the answer's content type, else the URL's), streaming to disk.
 * Answers the paths written.
 */
export async function downloadOutputs(job: Job, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true }).catch((err: unknown) => {
    throw new SaveError(`cannot make ${dir}: ${fileError(err)}`);
  });
  const paths: string[] = [];
  for (const [i, item] of (job.outputs ?? []).entries()) {
    const res = await fetch(item.url).catch((err: unknown) => {
      throw new SaveError(`downloading ${item.url}: ${networkReason(err)}`);
    });
    if (!res.ok || !res.body) throw new SaveError(`downloading ${item.url} answered ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const ext = EXTENSIONS[type] ?? (extname(new URL(item.url).pathname) || '');
    const path = join(dir, `${job.jobId}${i > 0 ? `-${i}` : ''}${ext}`);
    await pipeline(Readable.fromWeb(res.body as WebStream<Uint8Array>), createWriteStream(path)).catch(
      (err: unknown) => {
        throw new SaveError(`cannot write ${path}: ${fileError(err)}`);
      },
    );
    paths.push(path);
  }
  return paths;
}
