import type { Request } from 'express';
import { AppError } from '../../errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { Upload, UploadContentType } from '../../k8s/types.ts';
import { maxSizeOf } from '../../uploads/policy.ts';
import type { Principal } from '../request.ts';
import { TokenBuckets } from './token-bucket.ts';
import { uploadUsage } from './usage.ts';

/** The refusal of a submit past the live-jobs cap (GENJOBS_MAX_LIVE_JOBS). */
export function liveJobsExceeded(live: number, retryAfterSeconds: number): AppError {
  return new AppError(
    'CONCURRENT_JOBS_EXCEEDED',
    `the account has ${live} unfinished jobs, the most it may have at once; try again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/** Local memory is a bridge until the cache shows a write; past this it is dropped. */
const BRIDGE_MS = 30_000;

/** Per-account limits of one api process; 0 turns a limit off. */
export interface LimitSettings {
  /** Requests per second per account (token bucket refill), and the burst it allows. */
  requestsPerSecond: number;
  requestBurst: number;
  /** Unfinished jobs an account may have at once. */
  maxLiveJobs: number;
  /** Live (not expired) uploads an account may have at once, and the bytes they may hold. */
  maxLiveUploads: number;
  maxUploadBytes: number;
}

export interface RequestLimitsOptions {
  settings: LimitSettings;
  /** How many unfinished jobs an account has in the cache (api/jobs/unfinished.ts). */
  unfinishedJobs: (account: string) => number;
  /** Seconds until the first unfinished job of the account should end (QueueView.firstFinishIn). */
  firstFinishIn?: (account: string) => number | undefined;
  /** The upload cache, indexed by `account`. */
  uploadCache: Informer<Upload>;
  now?: () => number;
}

/**
 * Per-account limits on what one tenant may make the service do: a request rate (429
 * RATE_LIMITED with Retry-After), and caps on the resources it keeps in the cluster at once
 * (unfinished jobs; live uploads and their bytes), counted from the informer caches so a
 * check costs no apiserver call. Called by the authenticator once the account is known.
 *
 * Rates are per api process: with N replicas an account gets up to N times the rate, which
 * the chart documents (the limit protects each process; the caps protect the cluster).
 */
export class RequestLimits {
  private readonly o: RequestLimitsOptions;
  private readonly buckets: TokenBuckets | undefined;
  /**
   * Uploads this process let through that its cache does not show yet, by account: fileId →
   * (the bytes counted for it, since when). A burst of presigns counts each of them, not the
   * cache alone (which shows none of a burst until its creates return). Each ends at the
   * cache's first event of its Upload, at a failed create, or after BRIDGE_MS.
   */
  private readonly presigning = new Map<string, Map<string, { bytes: number; since: number }>>();

  constructor(options: RequestLimitsOptions) {
    this.o = options;
    options.uploadCache.on((_type, u) => {
      const mine = this.presigning.get(u.spec.account);
      if (mine?.delete(u.metadata.name ?? '') && mine.size === 0) this.presigning.delete(u.spec.account);
    });
    const s = options.settings;
    this.buckets =
      s.requestsPerSecond > 0
        ? new TokenBuckets({ perSecond: s.requestsPerSecond, burst: Math.max(1, s.requestBurst) })
        : undefined;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Throws the refusal when the request goes over a limit of the caller's account. */
  check(principal: Principal, req: Request): void {
    const account = principal.account.metadata.name ?? '';
    const now = this.now();
    const taken = this.buckets?.take(account, now);
    if (taken && !taken.ok) {
      throw new AppError('RATE_LIMITED', 'too many requests for this account; slow down', {
        retryAfterSeconds: Math.max(1, Math.ceil(taken.retryAfterMs / 1000)),
      });
    }
    if (req.method !== 'POST') return;
    // The route as declared, not as sent: Express also routes /V1/Jobs/Submit and a trailing slash here.
    const route: unknown = req.route?.path;
    if (route === '/v1/jobs/submit') this.checkJobs(account);
  }

  private checkJobs(account: string): void {
    const cap = this.o.settings.maxLiveJobs;
    if (cap <= 0) return;
    const live = this.o.unfinishedJobs(account);
    // Undefined only while the cache has not seen the account's jobs: half a minute.
    if (live >= cap) throw liveJobsExceeded(live, this.o.firstFinishIn?.(account) ?? 30);
  }

  /**
   * Takes room under the account's upload caps for upload `fileId` of `contentType` (a
   * valid one), or throws the refusal; {@link dropUpload} gives it back if it is not made.
   */
  takeUpload(account: string, fileId: string, contentType: UploadContentType): void {
    const { maxLiveUploads, maxUploadBytes } = this.o.settings;
    if (maxLiveUploads <= 0 && maxUploadBytes <= 0) return;
    const now = this.now();
    const usage = uploadUsage(this.o.uploadCache.byIndex('account', account), now);
    const mine = this.presigning.get(account) ?? new Map<string, { bytes: number; since: number }>();
    for (const [id, { bytes, since }] of mine) {
      if (this.o.uploadCache.get(id) || now - since > BRIDGE_MS) mine.delete(id);
      else {
        usage.count++;
        usage.bytes += bytes;
      }
    }
    const secondsUntil = (at: number | undefined) =>
      Math.max(1, Math.ceil(((at ?? now + 60_000) - now) / 1000));
    if (maxLiveUploads > 0 && usage.count >= maxLiveUploads) {
      // A place under the count frees only when an upload expires, not when its PUT closes.
      const retryAfterSeconds = secondsUntil(usage.nextExpiryAt);
      throw new AppError(
        'RATE_LIMITED',
        `the account has ${usage.count} live uploads, the most it may have at once; the oldest expires in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
    const retryAfterSeconds = secondsUntil(usage.nextReleaseAt);
    // The new upload counts with the largest file its type allows.
    const wanted = maxSizeOf(contentType);
    if (maxUploadBytes > 0 && usage.bytes + wanted > maxUploadBytes) {
      throw new AppError(
        'RATE_LIMITED',
        `the account's live uploads may hold ${usage.bytes} bytes; another ${wanted} would pass its quota of ${maxUploadBytes}`,
        { retryAfterSeconds },
      );
    }
    mine.set(fileId, { bytes: wanted, since: now });
    this.presigning.set(account, mine);
  }

  /** Gives back the room {@link takeUpload} took for an upload that was not made. */
  dropUpload(account: string, fileId: string): void {
    const mine = this.presigning.get(account);
    if (mine?.delete(fileId) && mine.size === 0) this.presigning.delete(account);
  }
}
