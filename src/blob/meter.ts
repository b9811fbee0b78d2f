import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';

/**
 * Counts and hashes the bytes of a body on their way to storage, and stops it with
 * PAYLOAD_TOO_LARGE on the first chunk that goes past `maxSize`, before that chunk is
 * passed on: nothing beyond the limit ever reaches the store.
 */
export class ByteMeter {
  readonly #maxSize: number;
  readonly #hash = createHash('sha256');
  #size = 0;

  constructor(maxSize = Number.POSITIVE_INFINITY) {
    this.#maxSize = maxSize;
  }

  /** Bytes passed so far. */
  get size(): number {
    return this.#size;
  }

  /** Base64url SHA-256 of everything passed; call once, at the end. */
  digest(): string {
    return this.#hash.digest('base64url');
  }

  /** A pipeline stage: `pipeline(body, meter.stage(), destination)`. */
  stage(): (source: AsyncIterable<Uint8Array | string>) => AsyncGenerator<Uint8Array> {
    const meter = this;
    return async function* (source) {
      for await (const chunk of source) yield meter.#accept(chunk);
    };
  }

  #accept(chunk: Uint8Array | string): Uint8Array {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#size += bytes.byteLength;
    if (this.#size > this.#maxSize) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the body is larger than the limit of ${this.#maxSize} bytes`);
    }
    this.#hash.update(bytes);
    return bytes;
  }
}
