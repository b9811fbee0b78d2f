import { describe, expect, it } from 'vitest';
import { displayUrl } from './download.ts';

describe('displayUrl: an input URL as a failed job names it to its owner', () => {
  it.each([
    ['https://cdn.example/a.png?X-Amz-Signature=secret', 'https://cdn.example/a.png?…'],
    ['http://127.0.0.1:8080/files/u/1.png', 'http://127.0.0.1:8080/files/u/1.png'],
    ['data:image/png;base64,iVBORw0KGgo=', 'data:image/png;base64,…'],
    // No origin for these schemes: their host, never "null".
    ['file:///etc/passwd', 'file:///etc/passwd'],
    ['ftp://files.example/x.png', 'ftp://files.example/x.png'],
  ])('%s reads %s', (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });
});
