import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { fitLongSide } from './builtin/size.ts';
import type { RunContext } from './context.ts';
import { runFfmpeg } from './ffmpeg.ts';
import { storeFile } from './store.ts';

/** Long side of a video's thumbnail, in pixels. */
export const THUMBNAIL_LONG_SIDE = 320;

/** The still images that go with a video output. */
export interface VideoStills {
  posterImage: string;
  thumbnail: string;
}

/**
 * Takes the frame at `atSeconds` (the first frame if the video is shorter) and stores it
 * twice beside the video `<stem>.mp4`: `<stem>-poster.jpg` at full size and
 * `<stem>-thumbnail.webp` at most 320 px long. Answers their URLs. Throws FfmpegError when
 * the video has no frame to take.
 */
export async function storeVideoStills(
  ctx: RunContext,
  video: string,
  stem: string,
  atSeconds: number,
): Promise<VideoStills> {
  const frame = join(ctx.scratchDir, `${stem}-frame.png`);
  await extractFrame(ctx, video, frame, atSeconds);
  if (!(await hasContent(frame))) await extractFrame(ctx, video, frame, 0);

  const posterFile = join(ctx.scratchDir, `${stem}-poster.jpg`);
  await sharp(frame).jpeg({ quality: 85 }).toFile(posterFile);
  const { width, height } = await sharp(frame).metadata();
  const thumbFile = join(ctx.scratchDir, `${stem}-thumbnail.webp`);
  const thumb = fitLongSide({ width, height }, THUMBNAIL_LONG_SIDE);
  await sharp(frame).resize(thumb.width, thumb.height).webp({ quality: 80 }).toFile(thumbFile);

  return {
    posterImage: await storeFile(ctx, `${stem}-poster.jpg`, posterFile, 'image/jpeg'),
    thumbnail: await storeFile(ctx, `${stem}-thumbnail.webp`, thumbFile, 'image/webp'),
  };
}

function extractFrame(ctx: RunContext, video: string, frame: string, atSeconds: number): Promise<void> {
  // -ss before -i seeks to the keyframe before the point, then decodes forward: fast on long videos.
  const args = ['-ss', String(atSeconds), '-i', video, '-frames:v', '1', '-an', '-c:v', 'png', frame];
  return runFfmpeg(ctx.ffmpeg, args, ctx.signal);
}

async function hasContent(file: string): Promise<boolean> {
  try {
    return (await stat(file)).size > 0;
  } catch {
    return false;
  }
}
