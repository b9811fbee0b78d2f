import type { Config } from '../../config.ts';
import type { LimitSettings } from './limits.ts';

/** The api's per-account limits, from the configuration. */
export function limitSettings(c: Config): LimitSettings {
  return {
    requestsPerSecond: c.GENJOBS_RATE_LIMIT_RPS,
    requestBurst: c.GENJOBS_RATE_LIMIT_BURST,
    maxLiveJobs: c.GENJOBS_MAX_LIVE_JOBS,
    maxLiveUploads: c.GENJOBS_MAX_LIVE_UPLOADS,
    maxUploadBytes: c.GENJOBS_MAX_UPLOAD_BYTES,
  };
}
