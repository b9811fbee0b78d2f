import type { Upload } from '../../k8s/types.ts';
import { putClosesAt } from '../../uploads/policy.ts';

/** What an account holds in the cluster right now, as far as per-account caps count it. */
export interface UploadUsage {
  /** Uploads not expired yet. */
  count: number;
  /**
   * Bytes they may take: the file's size once its PUT address has closed; the largest file
   * allowed (maxSize) while it is open, since the file may arrive at any moment.
   */
  bytes: number;
  /** When the earliest of them frees bytes (its PUT closes, or it expires), ms. */
  nextReleaseAt: number | undefined;
  /** When the earliest of them expires and stops counting at all, ms. */
  nextExpiryAt: number | undefined;
}

/** The live uploads of one account and the bytes they may hold. */
export function uploadUsage(uploads: readonly Upload[], now: number): UploadUsage {
  let count = 0;
  let bytes = 0;
  let nextReleaseAt: number | undefined;
  let nextExpiryAt: number | undefined;
  for (const u of uploads) {
    const expiresAt = Date.parse(u.spec.expiresAt);
    if (u.status?.phase === 'expired' || !(now < expiresAt)) continue;
    count++;
    const closesAt = putClosesAt(u);
    const open = now < closesAt;
    bytes += open ? Math.max(u.spec.maxSize, u.status?.size ?? 0) : (u.status?.size ?? 0);
    const release = open ? closesAt : expiresAt;
    if (nextReleaseAt === undefined || release < nextReleaseAt) nextReleaseAt = release;
    if (nextExpiryAt === undefined || expiresAt < nextExpiryAt) nextExpiryAt = expiresAt;
  }
  return { count, bytes, nextReleaseAt, nextExpiryAt };
}
