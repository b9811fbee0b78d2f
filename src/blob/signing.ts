import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
import { assertValidKey, assertValidPrefix, isValidPrefix } from './keys.ts';
import { assertValidMediaType } from './media-type.ts';

/** What a verified presigned PUT allows. */
export interface PutPermission {
  contentType: string;
  maxSize: number;
}

/** What a verified prefix grant allows. */
export interface GrantPermission {
  prefix: string;
  maxSize: number;
}

const GRANT_VERSION = 'gj1';

/**
 * HMAC-SHA256 signatures for the filesystem store's upload URLs and for prefix grants.
 * Signs with the first secret and accepts any of them, so a secret can be rotated with an
 * overlap. Each signed string starts with its purpose, so a URL signature can never be
 * replayed as a grant or the other way round.
 */
export class BlobSigner {
  readonly #secrets: readonly string[];
  readonly #now: () => number;

  constructor(options: { secrets: readonly string[]; now: () => number }) {
    if (options.secrets.length === 0 || options.secrets.some((s) => s.length < 32)) {
      throw new Error('blob signing secrets must be at least 32 characters');
    }
    this.#secrets = options.secrets;
    this.#now = options.now;
  }

  /** Query parameters that authorize one PUT of `key`. */
  signPut(key: string, options: PutPermission & { expiresAt: Date }): URLSearchParams {
    assertValidKey(key);
    assertValidMediaType(options.contentType);
    assertSize(options.maxSize);
    const expires = String(Math.floor(options.expiresAt.getTime() / 1000));
    const maxSize = String(options.maxSize);
    const signature = this.#mac(putPayload(key, expires, options.contentType, maxSize), 0);
    return new URLSearchParams({ expires, contentType: options.contentType, maxSize, signature });
  }

  /** Checks the query of a PUT to `key`; throws SIGNATURE_INVALID when tampered, expired or absent. */
  verifyPut(key: string, query: Record<string, unknown>): PutPermission {
    const { expires, contentType, maxSize, signature } = query;
    if (![expires, contentType, maxSize, signature].every((v) => typeof v === 'string')) {
      throw new AppError('SIGNATURE_INVALID', 'the upload URL is not signed');
    }
    const payload = putPayload(key, expires as string, contentType as string, maxSize as string);
    this.#check(payload, signature as string, expires as string);
    return { contentType: contentType as string, maxSize: Number(maxSize) };
  }

  /** A bearer token for PUTs under `prefix` of at most `maxSize` bytes each, until `expiresAt`. */
  mintGrant(prefix: string, expiresAt: Date, maxSize: number): string {
    assertValidPrefix(prefix);
    assertSize(maxSize);
    const body = [
      GRANT_VERSION,
      Buffer.from(prefix).toString('base64url'),
      Math.floor(expiresAt.getTime() / 1000),
      maxSize,
    ].join('.');
    return `${body}.${this.#mac(`grant\n${body}`, 0)}`;
  }

  /** Checks a grant token and that `key` lies under its prefix; throws SIGNATURE_INVALID otherwise. */
  verifyGrant(token: string, key: string): GrantPermission {
    const parts = token.split('.');
    const [version, encodedPrefix, expires, maxSize, signature] = parts;
    if (
      parts.length !== 5 ||
      version !== GRANT_VERSION ||
      !encodedPrefix ||
      !expires ||
      !maxSize ||
      !signature
    ) {
      throw new AppError('SIGNATURE_INVALID', 'malformed upload grant');
    }
    this.#check(`grant\n${parts.slice(0, 4).join('.')}`, signature, expires);
    const prefix = Buffer.from(encodedPrefix, 'base64url').toString();
    if (!isValidPrefix(prefix) || !key.startsWith(prefix)) {
      throw new AppError('SIGNATURE_INVALID', 'the upload grant does not cover this key');
    }
    return { prefix, maxSize: Number(maxSize) };
  }

  #mac(payload: string, index: number): string {
    return createHmac('sha256', this.#secrets[index]!).update(payload).digest('base64url');
  }

  #check(payload: string, signature: string, expires: string): void {
    const given = Buffer.from(signature, 'base64url');
    const valid = this.#secrets.some((_, i) => {
      const expected = Buffer.from(this.#mac(payload, i), 'base64url');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) throw new AppError('SIGNATURE_INVALID', 'the signature does not match');
    // Checked after the MAC so an attacker learns nothing from the expiry of a forged URL.
    if (!/^\d{1,12}$/.test(expires) || this.#now() >= Number(expires) * 1000) {
      throw new AppError('SIGNATURE_INVALID', 'the signature has expired');
    }
  }
}

function putPayload(key: string, expires: string, contentType: string, maxSize: string): string {
  // Fields are newline-separated and none may contain a newline (keys and media types are
  // validated when signing), so no two different requests share a signed string.
  return ['put', key, expires, contentType, maxSize].join('\n');
}

function assertSize(maxSize: number): void {
  if (!Number.isSafeInteger(maxSize) || maxSize < 0) {
    throw new AppError('VALIDATION_ERROR', `invalid maxSize: ${maxSize}`);
  }
}
