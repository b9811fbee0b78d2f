import { join } from 'node:path';
import type { OutputItem } from '../../k8s/types.ts';
import type { RunContext } from '../context.ts';
import { WorkerError } from '../errors.ts';
import { FfmpegError, runFfmpeg } from '../ffmpeg.ts';
import { storeVideoStills } from '../poster.ts';
import { storeFile } from '../store.ts';
import {
  readAspectRatio,
  readDuration,
  readHasSound,
  readPrompt,
  readSeed,
  readVideoResolution,
} from './input.ts';
import { Random } from './random.ts';
import { parseAspectRatio, type Size, sizeFromShortSide, VIDEO_SHORT_SIDE } from './size.ts';
import { audioGraph, FPS, videoGraph } from './video-scene.ts';

/**
 * The builtin text-to-video: an H.264/yuv420p MP4 (faststart, so browsers play it while it
 * downloads) of a generator scene chosen by the prompt and seed, at the requested duration,
 * aspect ratio (default 16:9) and resolution (short side), with an AAC chord exactly when
 * `has_sound` is true; plus a poster image and a thumbnail.
 */
export async function textToVideo(ctx: RunContext): Promise<OutputItem[]> {
  const { input } = ctx;
  const prompt = readPrompt(input);
  const seconds = readDuration(input);
  const sound = readHasSound(input);
  const resolution = readVideoResolution(input);
  const size = sizeFromShortSide(
    parseAspectRatio(readAspectRatio(input, '16:9')),
    VIDEO_SHORT_SIDE[resolution],
  );

  const random = new Random('text-to-video', prompt, readSeed(input, ctx.seed));
  const video = join(ctx.scratchDir, 'output-0.mp4');
  const { graph } = videoGraph(random, size, seconds);
  const audio = sound ? audioGraph(random, seconds) : undefined;
  try {
    await runFfmpeg(
      ctx.ffmpeg,
      encodeArgs({ video: graph, audio, size, seconds, output: video }),
      ctx.signal,
    );
  } catch (error) {
    if (error instanceof FfmpegError)
      throw new WorkerError('GENERATION_FAILED', 'video encoding failed', { detail: error.message });
    throw error;
  }
  const url = await storeFile(ctx, 'output-0.mp4', video, 'video/mp4');
  const stills = await storeVideoStills(ctx, video, 'output-0', Math.min(0.5, seconds / 2));
  return [{ type: 'video', url, ...stills }];
}

export interface EncodeOptions {
  /** Filtergraph ending in `[v]`. */
  video: string;
  /** Filtergraph ending in `[a]`; no audio stream at all when absent. */
  audio: string | undefined;
  size: Size;
  seconds: number;
  output: string;
}

// x264's output depends on its thread count; a fixed count keeps a seed's video identical
// on every node, whatever its CPUs.
const X264_THREADS = '4';

/** ffmpeg arguments that encode the graphs into a browser-playable MP4. */
export function encodeArgs({ video, audio, size, seconds, output }: EncodeOptions): string[] {
  // veryfast looks better per byte; at 4k it is four times slower than ultrafast on two cores.
  const preset = Math.min(size.width, size.height) > 1080 ? 'ultrafast' : 'veryfast';
  const graph = audio === undefined ? video : `${video};${audio}`;
  const audioArgs =
    audio === undefined ? ['-an'] : ['-map', '[a]', '-c:a', 'aac', '-b:a', '128k', '-ar', '48000'];
  return [
    ...['-filter_complex', graph, '-map', '[v]'],
    // The graphs end at `seconds`. A frame count (-frames:v) would stop the output while the
    // audio encoder still held its last frames: the sound track came out ~50 ms short.
    ...['-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', preset, '-crf', '23', '-pix_fmt', 'yuv420p', '-threads', X264_THREADS],
    // A keyframe every 2 s, so players and editors can seek without decoding from the start.
    ...['-g', String(2 * FPS)],
    ...['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv'],
    ...audioArgs,
    // bitexact and no metadata: no encoder version or time in the file, so the bytes repeat.
    ...['-movflags', '+faststart', '-fflags', '+bitexact', '-flags', '+bitexact', '-map_metadata', '-1'],
    output,
  ];
}
