import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { OUTPUT_MEDIA } from '../blob/media-type.ts';
import type { OutputItem } from '../k8s/types.ts';
import type { RunContext } from './context.ts';
import { DownloadError, displayUrl, downloadToFile } from './download.ts';
import { WorkerError } from './errors.ts';
import { FfmpegError } from './ffmpeg.ts';
import { requestUrl } from './input-guard.ts';
import { storeVideoStills } from './poster.ts';
import { storeFile } from './store.ts';

/** Who produced the outputs: its origin gets the token when we fetch them. */
export interface OutputOrigin {
  origin: string;
  token?: string;
}

export const REHOST_MAX_BYTES = 1024 * 1024 * 1024;
const REHOST_TIMEOUT_MS = 5 * 60_000;

const BY_EXTENSION = new Map(
  Object.entries(OUTPUT_MEDIA).map(([contentType, { ext }]) => [ext, contentType]),
);
BY_EXTENSION.set('jpeg', 'image/jpeg');

/**
 * Copies a model's output into our blob store: each URL (http(s) or data:) is fetched and
 * stored, any other string is stored as text. Arrays and objects (Cog models may return
 * either) are read in order. Videos also get a poster image and a thumbnail.
 */
export async function rehostOutputs(
  ctx: RunContext,
  output: unknown,
  from: OutputOrigin,
): Promise<OutputItem[]> {
  const values = flatten(output);
  if (values.length === 0) throw new WorkerError('GENERATION_FAILED', 'the model returned no output');
  const items: OutputItem[] = [];
  for (const [i, value] of values.entries()) items.push(await rehostOne(ctx, value, `output-${i}`, from));
  return items;
}

async function rehostOne(
  ctx: RunContext,
  value: string,
  stem: string,
  from: OutputOrigin,
): Promise<OutputItem> {
  if (!/^(https?|data):/i.test(value)) {
    const file = join(ctx.scratchDir, `${stem}.txt`);
    await writeFile(file, value);
    return { type: 'text', url: await storeFile(ctx, `${stem}.txt`, file, 'text/plain; charset=utf-8') };
  }
  const file = join(ctx.scratchDir, `${stem}.download`);
  const where = `output ${displayUrl(value)}`;
  let declared: string;
  try {
    const sameOrigin = !value.startsWith('data:') && new URL(value).origin === from.origin;
    const headers = from.token && sameOrigin ? { authorization: `Bearer ${from.token}` } : undefined;
    const downloaded = await downloadToFile(value, file, {
      fetch: outputFetch(ctx, from.origin),
      signal: ctx.signal,
      timeoutMs: REHOST_TIMEOUT_MS,
      maxBytes: REHOST_MAX_BYTES,
      headers,
    });
    declared = downloaded.contentType;
  } catch (error) {
    if (error instanceof DownloadError)
      throw new WorkerError('UPSTREAM_ERROR', 'an output of the model could not be downloaded', {
        detail: `${where} ${error.message}`,
      });
    throw error;
  }
  const contentType = OUTPUT_MEDIA[declared] ? declared : BY_EXTENSION.get(extensionOf(value));
  const media = contentType === undefined ? undefined : OUTPUT_MEDIA[contentType];
  if (contentType === undefined || media === undefined) {
    throw new WorkerError(
      'INVALID_OUTPUT',
      `an output of the model has unsupported media type ${declared || '(none)'}`,
      {
        detail: `${where} has unsupported media type ${declared || '(none)'}`,
      },
    );
  }
  const url = await storeFile(ctx, `${stem}.${media.ext}`, file, contentType);
  if (media.type !== 'video') return { type: media.type, url };
  try {
    return { type: 'video', url, ...(await storeVideoStills(ctx, file, stem, 0.5)) };
  } catch (error) {
    if (error instanceof FfmpegError)
      throw new WorkerError('INVALID_OUTPUT', 'an output of the model is not a playable video', {
        detail: `${where} is not a playable video`,
      });
    throw error;
  }
}

/**
 * The fetch for one output URL. The model server's own origin is the catalog's choice
 * (often an in-cluster address) and is fetched as it is; any other URL, and every redirect
 * even from the model server, goes through the input guard (public addresses only, checked
 * when connecting), so an upstream cannot point the worker at the cluster's inside. A
 * redirect never carries the model server's token along.
 */
function outputFetch(ctx: RunContext, modelOrigin: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(requestUrl(input));
    if (url.protocol === 'data:' || url.origin !== modelOrigin) return ctx.fetchInput(url, init);
    const response = await ctx.fetch(url, { ...init, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    await response.body?.cancel();
    return ctx.fetchInput(new URL(location, url), { ...init, headers: undefined });
  };
}

function flatten(output: unknown): string[] {
  if (output === undefined || output === null) return [];
  if (typeof output === 'string') return output === '' ? [] : [output];
  if (typeof output === 'number' || typeof output === 'boolean') return [String(output)];
  if (Array.isArray(output)) return output.flatMap(flatten);
  if (typeof output === 'object') return Object.values(output).flatMap(flatten);
  return [];
}

function extensionOf(url: string): string {
  if (url.startsWith('data:')) return '';
  try {
    return extname(new URL(url).pathname).slice(1).toLowerCase();
  } catch {
    return '';
  }
}
