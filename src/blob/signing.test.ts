import { describe, expect, it } from 'vitest';
import { sameMediaType } from './media-type.ts';
import { BlobSigner } from './signing.ts';

const now = Date.parse('2030-01-01T00:00:00Z');
const signer = new BlobSigner({ secrets: ['a'.repeat(32)], now: () => now });
const later = new Date(now + 60_000);
const put = { contentType: 'image/png', maxSize: 10, expiresAt: later };

function query(params: URLSearchParams): Record<string, string> {
  return Object.fromEntries(params);
}

describe('BlobSigner', () => {
  it('verifies its own upload URL and returns what it allows', () => {
    expect(signer.verifyPut('uploads/a/f', query(signer.signPut('uploads/a/f', put)))).toEqual({
      contentType: 'image/png',
      maxSize: 10,
    });
  });

  it('accepts URLs signed with a previous secret during a rotation, and not after', () => {
    const old = new BlobSigner({ secrets: ['b'.repeat(32)], now: () => now });
    const rotating = new BlobSigner({ secrets: ['a'.repeat(32), 'b'.repeat(32)], now: () => now });
    const params = query(old.signPut('uploads/a/f', put));
    expect(rotating.verifyPut('uploads/a/f', params).maxSize).toBe(10);
    expect(() => signer.verifyPut('uploads/a/f', params)).toThrow(/does not match/);
  });

  it.each([
    ['another key', 'uploads/a/g', {}],
    ['a larger maxSize', 'uploads/a/f', { maxSize: '11' }],
    ['another type', 'uploads/a/f', { contentType: 'image/gif' }],
    ['a later expiry', 'uploads/a/f', { expires: String(later.getTime() / 1000 + 60) }],
    ['a missing field', 'uploads/a/f', { maxSize: undefined }],
    ['a repeated field', 'uploads/a/f', { maxSize: ['10', '10'] }],
  ])('refuses %s with SIGNATURE_INVALID', (_, key, change) => {
    const params: Record<string, unknown> = { ...query(signer.signPut('uploads/a/f', put)), ...change };
    expect(() => signer.verifyPut(key, params)).toThrow(
      expect.objectContaining({ code: 'SIGNATURE_INVALID' }),
    );
  });

  it('refuses a URL at and after its expiry', () => {
    const params = query(signer.signPut('uploads/a/f', put));
    const atExpiry = new BlobSigner({ secrets: ['a'.repeat(32)], now: () => later.getTime() });
    expect(() => atExpiry.verifyPut('uploads/a/f', params)).toThrow(/expired/);
  });

  it.each([
    ['an invalid key', () => signer.signPut('../x', put)],
    [
      'a content type with a newline',
      () => signer.signPut('uploads/a/f', { ...put, contentType: 'image/png\nx' }),
    ],
    ['a negative size', () => signer.signPut('uploads/a/f', { ...put, maxSize: -1 })],
    ['a grant for a key, not a prefix', () => signer.mintGrant('jobs/j1', later, 1)],
  ])('will not sign %s', (_, sign) => {
    expect(sign).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });

  it('verifies a grant for keys under its prefix only', () => {
    const grant = signer.mintGrant('jobs/j1/', later, 100);
    expect(signer.verifyGrant(grant, 'jobs/j1/output-0.png')).toEqual({ prefix: 'jobs/j1/', maxSize: 100 });
    expect(() => signer.verifyGrant(grant, 'jobs/j10/x')).toThrow(/does not cover/);
    expect(() => signer.verifyGrant(grant.replace('.100.', '.1000.'), 'jobs/j1/x')).toThrow(/does not match/);
    expect(() => signer.verifyGrant('gj1.x', 'jobs/j1/x')).toThrow(/malformed/);
  });

  it('refuses secrets shorter than 32 characters', () => {
    expect(() => new BlobSigner({ secrets: ['short'], now: () => now })).toThrow(/32/);
  });
});

describe('sameMediaType', () => {
  it.each([
    ['image/png', 'image/png', true],
    ['IMAGE/PNG', 'image/png', true],
    ['image/png; charset=x', 'image/png', true],
    ['image/pngx', 'image/png', false],
    [undefined, 'image/png', false],
  ])('%s vs %s: %s', (actual, expected, same) => {
    expect(sameMediaType(actual, expected)).toBe(same);
  });
});
