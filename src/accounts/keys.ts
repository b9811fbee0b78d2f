import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'gjk_';
const SECRET_LENGTH = 40;
/** A well-formed key: the prefix and at least 32 base62 characters. */
export const KEY_PATTERN = /^gjk_[A-Za-z0-9]{32,128}$/;

/** A new API key secret: `gjk_` and 40 uniformly random base62 characters (≈238 bits). */
export function generateKey(): string {
  let s = KEY_PREFIX;
  for (let i = 0; i < SECRET_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** Lower-case hex SHA-256 of the whole key: the only form in which a key is stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key shown in listings to recognise it: `gjk_` and 8 characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The ApiKey object name for a key: derived from its hash, so a look-up is one map access. */
export function apiKeyName(keyHash: string): string {
  return `key-${keyHash.slice(0, 24)}`;
}
