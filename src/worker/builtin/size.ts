import { WorkerError } from '../errors.ts';

/** An aspect ratio as given (`16:9` is `{ w: 16, h: 9 }`). */
export interface AspectRatio {
  w: number;
  h: number;
}

export interface Size {
  width: number;
  height: number;
}

export const IMAGE_RESOLUTIONS = ['1k', '2k', '4k'] as const;
export type ImageResolution = (typeof IMAGE_RESOLUTIONS)[number];

export const VIDEO_RESOLUTIONS = ['720p', '1080p', '4k'] as const;
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];

/** Image resolutions name the long side. */
export const IMAGE_LONG_SIDE: Record<ImageResolution, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

/** Video resolutions name the short side, as `720p` does for a landscape 1280x720. */
export const VIDEO_SHORT_SIDE: Record<VideoResolution, number> = { '720p': 720, '1080p': 1080, '4k': 2160 };

// Beyond this a 1k image would have a short side of a few dozen pixels: not a picture.
const MAX_RATIO = 8;

/** Parses `W:H` (positive numbers, `2.39:1` allowed) and rejects absurd proportions. */
export function parseAspectRatio(text: string): AspectRatio {
  const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const w = Number(match?.[1]);
  const h = Number(match?.[2]);
  if (!match || !(w > 0) || !(h > 0)) {
    throw new WorkerError('GENERATION_FAILED', `aspect_ratio ${JSON.stringify(text)} is not of the form W:H`);
  }
  if (Math.max(w / h, h / w) > MAX_RATIO) {
    throw new WorkerError('GENERATION_FAILED', `aspect_ratio ${text} is more elongated than ${MAX_RATIO}:1`);
  }
  return { w, h };
}

/** An image of the given long side, the short side rounded to an even number of pixels. */
export function sizeFromLongSide(ratio: AspectRatio, long: number): Size {
  const short = even((long * Math.min(ratio.w, ratio.h)) / Math.max(ratio.w, ratio.h));
  return ratio.w >= ratio.h ? { width: long, height: short } : { width: short, height: long };
}

/** A frame of the given short side, the long side rounded to an even number of pixels (H.264 needs even). */
export function sizeFromShortSide(ratio: AspectRatio, short: number): Size {
  const long = even((short * Math.max(ratio.w, ratio.h)) / Math.min(ratio.w, ratio.h));
  return ratio.w >= ratio.h ? { width: long, height: short } : { width: short, height: long };
}

/** Scales a size so its long side is at most `long`, keeping the proportions. */
export function fitLongSide(size: Size, long: number): Size {
  const scale = Math.min(1, long / Math.max(size.width, size.height));
  return {
    width: Math.max(1, Math.round(size.width * scale)),
    height: Math.max(1, Math.round(size.height * scale)),
  };
}

function even(value: number): number {
  return Math.max(2, Math.round(value / 2) * 2);
}
