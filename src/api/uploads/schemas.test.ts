import { describe, expect, it } from 'vitest';
import { FILENAME_PATTERN, PresignRequest } from './schemas.ts';

describe('the documented filename pattern', () => {
  const pattern = new RegExp(FILENAME_PATTERN, 'u');
  it.each([
    'cat.png',
    ' a ',
    '名前.png',
    '😀.gif',
    '',
    ' ',
    '\t',
    '\u00a0\u3000',
    '\ufeff',
    'a\nb',
    'a\u0085b',
    'a\u007fb',
    'invoice\u202egnp.exe',
    'a\u2066b\u2069',
    '\u200f.png',
    'عربي.png',
  ])('admits %j exactly when presign takes it', (filename) => {
    const taken = PresignRequest.safeParse({ filename, contentType: 'image/png' }).success;
    expect(pattern.test(filename)).toBe(taken);
  });
});

describe('presign filenames', () => {
  it.each([
    ['invoice\u202egnp.exe', /control or bidi/],
    ['a\ud800.png', /no lone surrogate/],
  ])('refuses %j', (filename, message) => {
    const r = PresignRequest.safeParse({ filename, contentType: 'image/png' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(message);
  });

  it('takes names in any script, as sent', () => {
    for (const filename of [
      'عربي.png',
      'हिन्दी.png',
      '中文.png',
      'ไทย.png',
      '👨\u200d👩\u200d👧.png',
      'e\u0301.png',
    ])
      expect(PresignRequest.parse({ filename, contentType: 'image/png' }).filename).toBe(filename);
  });
});
