import { describe, expect, it } from 'vitest';
import {
  encodeWorkerResult,
  parseWorkerResult,
  TERMINATION_MESSAGE_LIMIT,
  WORKER_ERROR_CODES,
  type WorkerResult,
} from './result.ts';

const video: WorkerResult = {
  ok: true,
  outputs: [
    {
      type: 'video',
      url: 'https://cdn.test/jobs/j1/output-0.mp4',
      thumbnail: 'https://cdn.test/jobs/j1/output-0-thumbnail.webp',
      posterImage: 'https://cdn.test/jobs/j1/output-0-poster.jpg',
    },
  ],
};

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('encodeWorkerResult', () => {
  it('round-trips a success through parseWorkerResult', () => {
    expect(parseWorkerResult(encodeWorkerResult(video))).toEqual(video);
  });

  it.each(WORKER_ERROR_CODES.map((code) => [code]))('round-trips a %s failure', (code) => {
    const result: WorkerResult = { ok: false, error: { code, message: 'why' } };
    expect(parseWorkerResult(encodeWorkerResult(result))).toEqual(result);
  });

  it.each([
    ['ascii', 'x'.repeat(10_000)],
    ['multi-byte', '画像生成に失敗しました🎨'.repeat(500)],
    ['escaped quotes and control characters', '"\\\n\u0001'.repeat(3000)],
    ['a message exactly one byte too long', 'y'.repeat(TERMINATION_MESSAGE_LIMIT)],
  ])('shortens a %s message to fit 4 KiB as valid JSON', (_name, message) => {
    const text = encodeWorkerResult({ ok: false, error: { code: 'GENERATION_FAILED', message } });
    expect(bytes(text)).toBeLessThanOrEqual(TERMINATION_MESSAGE_LIMIT);
    const parsed = parseWorkerResult(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe('GENERATION_FAILED');
    expect(parsed.error.message.endsWith('…')).toBe(true);
    expect(message.startsWith(parsed.error.message.slice(0, -1))).toBe(true);
    // Nearly all of the room is used, so no useful text was thrown away.
    expect(bytes(text)).toBeGreaterThan(TERMINATION_MESSAGE_LIMIT - 8);
  });

  it('reports outputs too many to fit as INVALID_OUTPUT rather than cutting the JSON', () => {
    const outputs = Array.from({ length: 60 }, (_, i) => ({
      type: 'image' as const,
      url: `https://cdn.test/${i}`.padEnd(100, 'x'),
    }));
    const text = encodeWorkerResult({ ok: true, outputs });
    expect(bytes(text)).toBeLessThanOrEqual(TERMINATION_MESSAGE_LIMIT);
    expect(parseWorkerResult(text)).toMatchObject({ ok: false, error: { code: 'INVALID_OUTPUT' } });
  });
});

describe('parseWorkerResult', () => {
  it.each([
    ['nothing', undefined, 'no result'],
    ['an empty message', '  ', 'no result'],
    ['garbage', 'Segmentation fault (core dumped)', 'not JSON'],
    ['a truncated message', encodeWorkerResult(video).slice(0, 50), 'not JSON'],
    ['an array', '[]', 'not an object'],
    ['no ok flag', '{"outputs":[]}', 'no ok flag'],
    ['no outputs', '{"ok":true,"outputs":[]}', 'no outputs'],
    ['an output without url', '{"ok":true,"outputs":[{"type":"image"}]}', 'url'],
    ['a file: url', '{"ok":true,"outputs":[{"type":"image","url":"file:///etc/passwd"}]}', 'url'],
    [
      'an unknown type',
      '{"ok":true,"outputs":[{"type":"hologram","url":"https://x.test/a"}]}',
      'unknown type',
    ],
    [
      'a bad thumbnail',
      '{"ok":true,"outputs":[{"type":"video","url":"https://x.test/a","thumbnail":7}]}',
      'thumbnail',
    ],
    ['an unknown error code', '{"ok":false,"error":{"code":"OOPS","message":"m"}}', 'unknown error code'],
    ['an error without message', '{"ok":false,"error":{"code":"TIMEOUT"}}', 'no message'],
  ])('turns %s into INVALID_OUTPUT', (_name, text, mentions) => {
    const result = parseWorkerResult(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('INVALID_OUTPUT');
    expect(result.error.message).toContain(mentions);
  });

  it('keeps only the known fields of an output item', () => {
    const text = JSON.stringify({
      ok: true,
      extra: 1,
      outputs: [{ type: 'image', url: 'https://x.test/a.png', secret: 's' }],
    });
    expect(parseWorkerResult(text)).toEqual({
      ok: true,
      outputs: [{ type: 'image', url: 'https://x.test/a.png' }],
    });
  });
});
