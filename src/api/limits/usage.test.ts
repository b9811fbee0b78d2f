import { describe, expect, it } from 'vitest';
import type { Upload } from '../../k8s/types.ts';
import { PUT_VALIDITY_MS, UPLOAD_RETENTION_MS } from '../../uploads/policy.ts';
import { uploadUsage } from './usage.ts';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const MB = 1024 * 1024;

/** An upload presigned at `createdAt`, with its file of `size` bytes once PUT. */
function upload(createdAt: number, size?: number): Upload {
  return {
    metadata: { name: `u-${createdAt}` },
    spec: {
      account: 'a',
      filename: 'f.png',
      contentType: 'image/png',
      maxSize: 10 * MB,
      expiresAt: new Date(createdAt + UPLOAD_RETENTION_MS).toISOString(),
    },
    ...(size === undefined ? {} : { status: { size } }),
  } as Upload;
}

describe('uploadUsage', () => {
  it('counts open uploads at their maximum, closed ones at their size, and expired ones not at all', () => {
    const now = T0 + 20 * 60_000;
    const usage = uploadUsage(
      [upload(T0, 2 * MB), upload(now - 60_000), upload(T0 - UPLOAD_RETENTION_MS)],
      now,
    );
    expect(usage.count).toBe(2);
    expect(usage.bytes).toBe(2 * MB + 10 * MB);
  });

  it('frees bytes when the first PUT address closes, but a place under the count only when an upload expires', () => {
    const now = T0 + 60_000;
    const usage = uploadUsage([upload(T0), upload(T0 + 30_000)], now);
    // The oldest's address closes 15 minutes after its presign: its bytes drop to its size.
    expect(usage.nextReleaseAt).toBe(T0 + PUT_VALIDITY_MS);
    // It counts until it expires, 60 minutes after its presign.
    expect(usage.nextExpiryAt).toBe(T0 + UPLOAD_RETENTION_MS);
  });
});
