import type { Upload, UploadStatus } from '../../k8s/types.ts';
import { putClosesAt } from '../../uploads/policy.ts';
import { sameJson } from '../conditions.ts';

/** Timing of the upload reconciler. */
export interface UploadSettings {
  /** How often a live upload's file is looked at while its PUT address works. */
  statIntervalMs: number;
  /**
   * Past the PUT address's expiry, time for a body still streaming to land before the last
   * look (a store checks the signature when a request starts; 100 MB over a slow link takes minutes).
   */
  putGraceMs: number;
  /** An expired Upload is deleted this long after it expired. */
  expiredRetentionMs: number;
}

export const DEFAULT_UPLOAD_SETTINGS: UploadSettings = {
  statIntervalMs: 30_000,
  putGraceMs: 5 * 60_000,
  expiredRetentionMs: 15 * 60_000,
};

/** What the uploaded file looks like: its size, or undefined when nothing was uploaded. */
export interface FileView {
  size: number;
}

export type UploadAction =
  | { kind: 'deleteFile' }
  | { kind: 'deleteUpload' }
  | { kind: 'event'; type: 'Normal' | 'Warning'; reason: string; message: string };

export interface UploadDecision {
  /** The new status, when it differs from the current one. */
  status?: UploadStatus;
  /** Done in order; `deleteFile` before the status write, so `expired` always means gone. */
  actions: UploadAction[];
  requeueAfterMs?: number;
}

/** Whether deciding needs a look at the file: only while the upload is live. */
export function needsFile(upload: Upload, now: number): boolean {
  return (upload.status?.phase ?? 'pending') === 'pending' && now < Date.parse(upload.spec.expiresAt);
}

/**
 * The Upload life cycle (spec 3.2) as a pure function. Live (`pending`): the file's size is
 * recorded, and a file over `maxSize` is deleted (an S3 presigned PUT cannot bound the
 * body; the filesystem store refuses it already). At `spec.expiresAt`: the file is deleted,
 * then the Upload marked `expired`. A short while later (expiredRetentionMs) the Upload itself goes. Every wait is a
 * requeue-after computed from the resource, so a restarted controller picks up where the
 * last one stopped.
 */
export function decideUpload(input: {
  upload: Upload;
  /** The file, when {@link needsFile}; undefined when there is none (or it was not looked at). */
  file: FileView | undefined;
  now: number;
  settings?: UploadSettings;
}): UploadDecision {
  const { upload, file, now } = input;
  const settings = input.settings ?? DEFAULT_UPLOAD_SETTINGS;
  const current = upload.status ?? {};
  const expiresAt = Date.parse(upload.spec.expiresAt);

  if ((current.phase ?? 'pending') === 'expired') {
    const removeAt = (Date.parse(current.expiredAt ?? '') || expiresAt) + settings.expiredRetentionMs;
    if (now >= removeAt) return { actions: [{ kind: 'deleteUpload' }] };
    return { actions: [], requeueAfterMs: removeAt - now };
  }

  if (now >= expiresAt) {
    return {
      status: { ...current, phase: 'expired', expiredAt: new Date(now).toISOString() },
      actions: [{ kind: 'deleteFile' }],
      requeueAfterMs: settings.expiredRetentionMs,
    };
  }

  const actions: UploadAction[] = [];
  const { size: _, ...rest } = current;
  const status: UploadStatus = { ...rest, phase: 'pending' };
  if (file && file.size > upload.spec.maxSize) {
    actions.push(
      { kind: 'deleteFile' },
      {
        kind: 'event',
        type: 'Warning',
        reason: 'FileTooLarge',
        message: `the uploaded file has ${file.size} bytes, more than the ${upload.spec.maxSize} allowed for ${upload.spec.contentType}; it was deleted`,
      },
    );
  } else if (file) {
    status.size = file.size;
  }
  // While the PUT address works the file can appear or change at any moment: look again
  // soon. After it closed (and a body still in flight had time to land) once more, then
  // nothing changes until the expiry.
  const lastLook = putClosesAt(upload) + settings.putGraceMs;
  const next = now < lastLook ? Math.min(now + settings.statIntervalMs, lastLook) : expiresAt;
  return {
    ...(sameJson(status, current) ? {} : { status }),
    actions,
    requeueAfterMs: Math.max(1, Math.min(next, expiresAt) - now),
  };
}
