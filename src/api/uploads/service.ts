import { randomUUID } from 'node:crypto';
import { uploadKey } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import { AppError } from '../../errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { UPLOAD_CONTENT_TYPES, type Upload } from '../../k8s/types.ts';
import {
  isUploadContentType,
  maxSizeOf,
  PUT_VALIDITY_MS,
  UPLOAD_RETENTION_MS,
} from '../../uploads/policy.ts';
import type { RequestLimits } from '../limits/limits.ts';
import { owns, type Principal } from '../request.ts';

export interface UploadServiceOptions {
  uploads: CustomResources<Upload>;
  uploadCache: Informer<Upload>;
  store: BlobStore;
  /** The account's caps on live uploads (api/limits): room is taken before an Upload is made. */
  quota?: Pick<RequestLimits, 'takeUpload' | 'dropUpload'>;
  now?: () => number;
}

/** The presign result of spec 2.5. */
export interface PresignResult {
  uploadUrl: string;
  fileUrl: string;
  fileId: string;
  expiresAt: string;
  maxSize: number;
}

/** The upload status record of spec 2.5. */
export interface UploadRecord {
  id: string;
  filename: string;
  contentType: string;
  fileUrl: string;
  status: 'pending' | 'expired';
  createdAt: string;
  expiresAt: string;
}

/**
 * Presigned uploads (spec 4.5, 4.6). Each upload is an Upload resource named by its fileId
 * and owned by the caller's account; the controller deletes the file at `spec.expiresAt`.
 * The Upload is created before the PUT address is handed out, so there is never a file
 * the controller does not know to expire.
 */
export class UploadService {
  private readonly o: UploadServiceOptions;

  constructor(options: UploadServiceOptions) {
    this.o = options;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  async presign(principal: Principal, filename: string, requestedType: string): Promise<PresignResult> {
    // Media types are case-insensitive (RFC 9110); the stored and signed form is lower case.
    const contentType = requestedType.trim().toLowerCase();
    if (!isUploadContentType(contentType)) {
      throw new AppError(
        'INVALID_CONTENT_TYPE',
        `contentType must be one of ${UPLOAD_CONTENT_TYPES.join(', ')}`,
        { errors: [{ pointer: '/contentType', message: 'not an allowed content type' }] },
      );
    }
    const account = principal.account.metadata.name ?? '';
    const fileId = randomUUID();
    this.o.quota?.takeUpload(account, fileId, contentType);
    const objectKey = uploadKey(principal.account.metadata.uid ?? account, fileId);
    const maxSize = maxSizeOf(contentType);
    const now = this.now();
    const expiresAt = new Date(now + UPLOAD_RETENTION_MS).toISOString();
    try {
      await this.o.uploads.create({
        metadata: { name: fileId, labels: { 'genjobs.io/account': account } },
        spec: { account, filename, contentType, maxSize, objectKey, expiresAt },
      });
    } catch (err) {
      this.o.quota?.dropUpload(account, fileId);
      throw new AppError('UNAVAILABLE', 'the upload could not be registered; please retry', {
        cause: err,
        retryAfterSeconds: 1,
      });
    }
    const uploadUrl = await this.o.store.presignPut(objectKey, {
      contentType,
      maxSize,
      expiresAt: new Date(now + PUT_VALIDITY_MS),
    });
    return { uploadUrl, fileUrl: this.o.store.publicUrl(objectKey), fileId, expiresAt, maxSize };
  }

  /**
   * Whether a presigned PUT to `key` may still land: the Upload it was presigned for exists.
   * A cache miss may be one presigned a moment ago (or by another replica): the apiserver says.
   */
  async acceptsFile(key: string): Promise<boolean> {
    const id = key.slice(key.lastIndexOf('/') + 1);
    const upload = this.o.uploadCache.get(id) ?? (validName(id) ? await this.o.uploads.get(id) : undefined);
    return upload?.spec.objectKey === key;
  }

  /** The caller's upload; another account's is as unknown as a missing one (spec 5, rule 3). */
  async get(principal: Principal, id: string): Promise<UploadRecord> {
    // A cache miss may be an upload presigned a moment ago: ask the apiserver (read your own write).
    const upload = this.o.uploadCache.get(id) ?? (validName(id) ? await this.o.uploads.get(id) : undefined);
    if (!upload || !owns(principal, upload.spec.account, upload.metadata.creationTimestamp)) {
      throw new AppError('NOT_FOUND', validName(id) ? `upload ${id} not found` : 'no upload has this id');
    }
    const record = this.record(upload);
    if (record.status === 'expired') return record;
    // `pending` says only that the address is usable (spec 3.2 has no state in between):
    // whether the file is there is the store's answer. A store that cannot answer leaves it out.
    const stored = await this.o.store.stat(upload.spec.objectKey).then(
      (info) => ({ uploaded: info !== undefined, ...(info ? { sizeBytes: info.size } : {}) }),
      () => ({}),
    );
    return { ...record, ...stored };
  }

  record(upload: Upload): UploadRecord {
    const expiresAt = Date.parse(upload.spec.expiresAt);
    // The clock decides, not the controller's pass: past expiresAt the file is as good as gone.
    const expired = upload.status?.phase === 'expired' || this.now() >= expiresAt;
    return {
      id: upload.metadata.name ?? '',
      filename: upload.spec.filename,
      contentType: upload.spec.contentType,
      fileUrl: this.o.store.publicUrl(upload.spec.objectKey),
      status: expired ? 'expired' : 'pending',
      // The presign instant, from which expiresAt was computed: the apiserver's
      // creationTimestamp has whole seconds only and would miss the 60 minutes (spec 2.5).
      createdAt: new Date(expiresAt - UPLOAD_RETENTION_MS).toISOString(),
      expiresAt: upload.spec.expiresAt,
    };
  }
}

const validName = (s: string) => /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(s);
