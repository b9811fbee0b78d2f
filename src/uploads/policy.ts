import { assertNever } from '../errors.ts';
import { UPLOAD_CONTENT_TYPES, type Upload, type UploadContentType } from '../k8s/types.ts';

const MINUTE = 60_000;
const MB = 1024 * 1024;

/** How long an uploaded file is kept: spec 3.2 and 8, 60 minutes from creation. */
export const UPLOAD_RETENTION_MS = 60 * MINUTE;
/** How long the presigned PUT address works: spec 3.2 and 8, 15 minutes. */
export const PUT_VALIDITY_MS = 15 * MINUTE;

/** Whether `value` is one of the eight content types of spec 4.5. */
export function isUploadContentType(value: string): value is UploadContentType {
  return (UPLOAD_CONTENT_TYPES as readonly string[]).includes(value);
}

/** Largest accepted file by content type (spec 8): images 10 MB, video 100 MB, audio 50 MB. */
export function maxSizeOf(contentType: UploadContentType): number {
  switch (contentType) {
    case 'image/jpeg':
    case 'image/png':
    case 'image/webp':
    case 'image/gif':
      return 10 * MB;
    case 'video/mp4':
    case 'video/webm':
      return 100 * MB;
    case 'audio/mpeg':
    case 'audio/wav':
      return 50 * MB;
    default:
      return assertNever(contentType);
  }
}

/**
 * When the presigned PUT of an upload stops working. Both it and `spec.expiresAt` are
 * computed from the same instant at presign, so this is exact without storing it.
 */
export function putClosesAt(upload: Upload): number {
  return Date.parse(upload.spec.expiresAt) - UPLOAD_RETENTION_MS + PUT_VALIDITY_MS;
}
