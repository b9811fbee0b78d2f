import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { testDir } from './temp.ts';

const run = promisify(execFile);

/** Downloads a URL to a temporary file (removed when the test ends) and returns its path and the response's content type. */
export async function download(url: string): Promise<{ path: string; contentType: string; bytes: Buffer }> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const dir = await testDir('genjobs-dl-');
  const path = join(dir, new URL(url).pathname.split('/').pop() ?? 'file');
  await writeFile(path, bytes);
  return { path, contentType: res.headers.get('content-type') ?? '', bytes };
}

/** Decodes an image (all of it, not just the header) and returns its format and size. */
export async function decodeImage(path: string): Promise<{ format: string; width: number; height: number }> {
  const { info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
  const meta = await sharp(path).metadata();
  return { format: meta.format ?? '', width: info.width, height: info.height };
}

export interface Probe {
  duration: number;
  video?: { codec: string; width: number; height: number; pixFmt: string };
  audio?: { codec: string };
}

/** ffprobe of a media file: duration and its first video and audio streams. */
export async function probe(path: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  const data = JSON.parse(stdout) as {
    format: { duration: string };
    streams: Array<Record<string, string | number>>;
  };
  const v = data.streams.find((s) => s.codec_type === 'video');
  const a = data.streams.find((s) => s.codec_type === 'audio');
  return {
    duration: Number(data.format.duration),
    ...(v
      ? {
          video: {
            codec: String(v.codec_name),
            width: Number(v.width),
            height: Number(v.height),
            pixFmt: String(v.pix_fmt),
          },
        }
      : {}),
    ...(a ? { audio: { codec: String(a.codec_name) } } : {}),
  };
}
