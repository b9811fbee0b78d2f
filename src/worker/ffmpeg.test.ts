import { describe, expect, it } from 'vitest';
import { WorkerError } from './errors.ts';
import { FfmpegError, runFfmpeg } from './ffmpeg.ts';

const signal = new AbortController().signal;
const oneSecond = [
  '-f',
  'lavfi',
  '-i',
  'testsrc=duration=1:size=320x240:rate=25',
  '-c:v',
  'libx264',
  '-f',
  'mp4',
];

describe('runFfmpeg', () => {
  it('a node that cannot take the output (a full disk: /dev/full) is the node fault INTERNAL, not the input', async () => {
    const failed = await runFfmpeg('ffmpeg', [...oneSecond, '/dev/full'], signal).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkerError);
    expect(failed).toMatchObject({
      code: 'INTERNAL',
      message: 'the worker could not write its output on its node (no space left on device)',
    });
    expect((failed as WorkerError).detail).toMatch(
      /^ffmpeg exited with code \d+: .*No space left on device/s,
    );
  });

  it('an input ffmpeg refuses stays an FfmpegError (the runtime says GENERATION_FAILED)', async () => {
    const failed = await runFfmpeg(
      'ffmpeg',
      ['-f', 'lavfi', '-i', 'nosuchsource', '-f', 'null', '-'],
      signal,
    ).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(FfmpegError);
  });
});
