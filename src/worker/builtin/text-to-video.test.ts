import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileOf, keyframeTimes, probe, tempDir, testContext } from '../test-helpers.ts';
import { textToVideo } from './text-to-video.ts';

describe('builtin text-to-video', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    root = await tempDir();
  });
  afterAll(() => root.cleanup());

  async function generate(input: Record<string, unknown>) {
    const { ctx, sink } = testContext(root.dir, input);
    const outputs = await textToVideo(ctx);
    expect(outputs).toHaveLength(1);
    const item = outputs[0]!;
    expect(item).toMatchObject({
      type: 'video',
      url: 'http://outputs.test/job/output-0.mp4',
      posterImage: 'http://outputs.test/job/output-0-poster.jpg',
      thumbnail: 'http://outputs.test/job/output-0-thumbnail.webp',
    });
    return {
      video: fileOf(sink, item.url),
      poster: fileOf(sink, item.posterImage!),
      thumbnail: fileOf(sink, item.thumbnail!),
    };
  }

  it.each([
    [
      { prompt: 'waves', duration: '4', resolution: '720p', aspect_ratio: '16:9', has_sound: 'true' },
      4,
      1280,
      720,
      true,
    ],
    [
      { prompt: 'rain', duration: 8, resolution: '720p', aspect_ratio: '9:16', has_sound: false },
      8,
      720,
      1280,
      false,
    ],
    [
      { prompt: 'fire', duration: 6, resolution: '1080p', aspect_ratio: '1:1', has_sound: true },
      6,
      1080,
      1080,
      true,
    ],
    [
      { prompt: 'a slow zoom', duration: '4', resolution: '4k', aspect_ratio: '16:9', has_sound: 'false' },
      4,
      3840,
      2160,
      false,
    ],
  ])('encodes %j as %d s %ix%i H.264, audio %s', async (input, seconds, width, height, sound) => {
    const { video, poster, thumbnail } = await generate(input);
    const info = await probe(video);
    expect(Number(info.format.duration)).toBeCloseTo(seconds, 1);
    expect(info.format.format_name).toContain('mp4');
    const videoStreams = info.streams.filter((s) => s.codec_type === 'video');
    expect(videoStreams).toMatchObject([{ codec_name: 'h264', pix_fmt: 'yuv420p', width, height }]);
    const audioStreams = info.streams.filter((s) => s.codec_type === 'audio');
    expect(audioStreams).toHaveLength(sound ? 1 : 0);
    if (sound) expect(audioStreams[0]?.codec_name).toBe('aac');
    // Every track as long as asked (the sound track used to end ~50 ms early), tagged BT.709,
    // a keyframe every 2 s.
    for (const s of info.streams) expect([s.codec_type, Number(s.duration)]).toEqual([s.codec_type, seconds]);
    expect(videoStreams[0]).toMatchObject({
      color_space: 'bt709',
      color_primaries: 'bt709',
      color_transfer: 'bt709',
    });
    const keys = await keyframeTimes(video);
    const gaps = keys.map((t, i) => (i === 0 ? t : t - keys[i - 1]!)).concat(seconds - keys.at(-1)!);
    expect(keys[0]).toBe(0);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2);

    // faststart: the index (moov) comes before the media data (mdat), so playback starts early.
    const head = (await readFile(video)).subarray(0, 64 * 1024).toString('latin1');
    expect(head.indexOf('moov')).toBeGreaterThan(-1);
    expect(head.indexOf('moov')).toBeLessThan(head.indexOf('mdat'));

    const posterMeta = await sharp(poster).metadata();
    expect([posterMeta.format, posterMeta.width, posterMeta.height]).toEqual(['jpeg', width, height]);
    const thumbMeta = await sharp(thumbnail).metadata();
    expect(thumbMeta.format).toBe('webp');
    expect(Math.max(thumbMeta.width, thumbMeta.height)).toBe(320);
    await sharp(thumbnail).raw().toBuffer();
  });

  it('repeats its bytes for the same prompt and seed, and changes with the prompt', async () => {
    const input = { prompt: 'northern lights', duration: 4, seed: 9, has_sound: true };
    const a = await readFile((await generate(input)).video);
    const b = await readFile((await generate(input)).video);
    expect(a.equals(b)).toBe(true);
    const other = await readFile((await generate({ ...input, prompt: 'desert wind' })).video);
    expect(a.equals(other)).toBe(false);
  });
});
