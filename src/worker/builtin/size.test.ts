import { describe, expect, it } from 'vitest';
import { WorkerError } from '../errors.ts';
import {
  IMAGE_LONG_SIDE,
  type ImageResolution,
  parseAspectRatio,
  sizeFromLongSide,
  sizeFromShortSide,
  VIDEO_SHORT_SIDE,
  type VideoResolution,
} from './size.ts';

describe('image sizes name the long side', () => {
  it.each<[string, ImageResolution, number, number]>([
    ['1:1', '1k', 1024, 1024],
    ['16:9', '1k', 1024, 576],
    ['9:16', '1k', 576, 1024],
    ['4:3', '2k', 2048, 1536],
    ['3:4', '2k', 1536, 2048],
    ['21:9', '1k', 1024, 438],
    ['3:2', '4k', 4096, 2730],
    ['2.39:1', '1k', 1024, 428],
  ])('%s at %s is %ix%i', (ratio, resolution, width, height) => {
    expect(sizeFromLongSide(parseAspectRatio(ratio), IMAGE_LONG_SIDE[resolution])).toEqual({ width, height });
  });
});

describe('video sizes name the short side', () => {
  it.each<[string, VideoResolution, number, number]>([
    ['16:9', '720p', 1280, 720],
    ['9:16', '720p', 720, 1280],
    ['16:9', '1080p', 1920, 1080],
    ['1:1', '1080p', 1080, 1080],
    ['16:9', '4k', 3840, 2160],
    ['21:9', '720p', 1680, 720],
    ['4:3', '720p', 960, 720],
  ])('%s at %s is %ix%i', (ratio, resolution, width, height) => {
    expect(sizeFromShortSide(parseAspectRatio(ratio), VIDEO_SHORT_SIDE[resolution])).toEqual({
      width,
      height,
    });
  });
});

describe('parseAspectRatio', () => {
  it.each(['16/9', '16:', ':9', '0:1', 'wide', '-16:9', '16:9:1'])(
    'rejects %j as a generation failure',
    (text) => {
      expect(() => parseAspectRatio(text)).toThrow(WorkerError);
      expect(() => parseAspectRatio(text)).toThrow('aspect_ratio');
    },
  );

  it('rejects proportions no picture has', () => {
    expect(() => parseAspectRatio('20:1')).toThrow('more elongated');
  });

  it('accepts spaces and decimals', () => {
    expect(parseAspectRatio(' 2.39 : 1 ')).toEqual({ w: 2.39, h: 1 });
  });
});
