import { describe, expect, it } from 'vitest';
import {
  readDuration,
  readHasSound,
  readImageFormat,
  readImageResolution,
  readImageUrls,
  readSeed,
  readVideoResolution,
} from './input.ts';

describe('input readers coerce what the spec sends as strings', () => {
  it.each([
    [{ duration: '8' }, 8],
    [{ duration: 8 }, 8],
    [{ duration: '4' }, 4],
    [{ duration: 6 }, 6],
    [{}, 8],
  ])('duration of %j is %d s', (input, seconds) => {
    expect(readDuration(input)).toBe(seconds);
  });

  it.each([[{ duration: '0' }], [{ duration: 'eight' }], [{ duration: 31 }], [{ duration: '' }]])(
    'duration of %j is refused with the field named',
    (input) => {
      expect(() => readDuration(input)).toThrow('input.duration');
    },
  );

  it.each([
    [{ has_sound: 'true' }, true],
    [{ has_sound: true }, true],
    [{ has_sound: 'false' }, false],
    [{ has_sound: false }, false],
    [{}, true],
  ])('has_sound of %j is %s', (input, sound) => {
    expect(readHasSound(input)).toBe(sound);
  });

  it('refuses a has_sound that is neither', () => {
    expect(() => readHasSound({ has_sound: 'yes' })).toThrow('input.has_sound');
  });

  it.each([
    [{}, '1k'],
    [{ resolution: '4K' }, '4k'],
    [{ resolution: '2k' }, '2k'],
  ])('image resolution of %j is %s', (input, resolution) => {
    expect(readImageResolution(input)).toBe(resolution);
  });

  it('video resolution defaults to 720p and refuses image resolutions', () => {
    expect(readVideoResolution({})).toBe('720p');
    expect(() => readVideoResolution({ resolution: '1k' })).toThrow('input.resolution');
  });

  it.each([
    [{}, 'png'],
    [{ output_format: 'jpg' }, 'jpeg'],
    [{ output_format: 'webp' }, 'webp'],
  ])('output format of %j is %s', (input, format) => {
    expect(readImageFormat(input)).toBe(format);
  });

  it.each([
    [{ image_urls: ['http://a/1.png', 'http://a/2.png'] }, ['http://a/1.png', 'http://a/2.png']],
    [{ image: 'http://a/upload.png' }, ['http://a/upload.png']],
    [{}, []],
  ])('image URLs of %j', (input, urls) => {
    expect(readImageUrls(input)).toEqual(urls);
  });

  it('the job seed wins over the input seed, which wins over 0', () => {
    expect(readSeed({ seed: 5 }, 7)).toBe(7);
    expect(readSeed({ seed: '5' }, undefined)).toBe(5);
    expect(readSeed({}, undefined)).toBe(0);
    expect(() => readSeed({ seed: 1.5 }, undefined)).toThrow('input.seed');
  });
});
