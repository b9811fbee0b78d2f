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
  ])('admits %j exactly when presign takes it', (filename) => {
    const taken = PresignRequest.safeParse({ filename, contentType: 'image/png' }).success;
    expect(pattern.test(filename)).toBe(taken);
  });
});
