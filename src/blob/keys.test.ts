import { describe, expect, it } from 'vitest';
import { isValidKey, isValidPrefix, jobOutputKey, jobPrefix, uploadFolder, uploadKey } from './keys.ts';

describe('object keys', () => {
  it.each([
    ['uploads/acme/3f0c1a9e-8d7b-4c55-9a43-2d0b7f1e6c10', true],
    ['jobs/gj-abc123/output-0.mp4', true],
    ['jobs/j1/thumbnail.jpg', true],
    ['a', true],
    ['../../etc/passwd', false],
    ['uploads/acme/../other/x', false],
    ['uploads/acme/a..b', false],
    ['/uploads/acme/x', false],
    ['uploads/acme/x/', false],
    ['uploads//x', false],
    ['uploads/acme/.hidden', false],
    ['uploads/acme/x.', false],
    ['uploads/ACME/x', false],
    ['uploads/acme/%2e%2e', false],
    ['uploads/acme/x y', false],
    ['uploads/acme/x\ny', false],
    ['uploads\\acme\\x', false],
    ['a/b/c/d/e/f/g/h/i', false],
    [`uploads/${'a'.repeat(129)}`, false],
    ['', false],
  ])('%j is valid: %s', (key, valid) => {
    expect(isValidKey(key)).toBe(valid);
  });

  it.each([
    ['jobs/j1/', true],
    ['jobs/', true],
    ['jobs/j1', false],
    ['/', false],
    ['jobs/../', false],
  ])('prefix %j is valid: %s', (prefix, valid) => {
    expect(isValidPrefix(prefix)).toBe(valid);
  });

  it('builds keys only from valid parts', () => {
    const uid = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    expect(uploadKey(uid, 'f-1')).toBe(`uploads/${uploadFolder(uid)}/f-1`);
    // A digest of the Account's uid: one folder per account, telling no one whose.
    expect(uploadFolder(uid)).toMatch(/^[0-9a-f]{24}$/);
    expect(uploadFolder(uid)).not.toBe(uploadFolder('0a1b2c3d-0000-4000-8000-000000000000'));
    expect(jobPrefix('j1')).toBe('jobs/j1/');
    expect(jobOutputKey('j1', 'output-0.png')).toBe('jobs/j1/output-0.png');
    expect(() => uploadKey('acme', '../../etc/passwd')).toThrow(/invalid object key/);
    expect(() => jobOutputKey('j1', '../j2/x')).toThrow(/invalid object key/);
    expect(() => jobPrefix('a/b/../c')).toThrow(/invalid object key prefix/);
  });
});
