import { isValidKey } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import { isConflict } from '../../k8s/errors.ts';
import type { EventRecorder } from '../../k8s/events.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { API_VERSION, type Upload } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Logger } from '../../log.ts';
import { decideUpload, needsFile, type UploadSettings } from './decide.ts';

export interface UploadReconcilerDeps {
  uploads: CustomResources<Upload>;
  uploadCache: Informer<Upload>;
  blob: BlobStore;
  events: EventRecorder;
  log: Logger;
  now: () => number;
  settings?: UploadSettings;
}

/**
 * The work-queue key of an Upload: `<account>/<fileId>/<objectKey>`. Its file's key is part of
 * it so that an Upload that is gone (deleted by hand, or with its account) still names its
 * file, which the reconciler then removes: no Upload, no file. (The file's folder comes from
 * the Account's uid, which a deleted Account no longer tells.)
 */
export function uploadQueueKey(upload: Upload): string {
  return `${upload.spec.account}/${upload.metadata.name ?? ''}/${upload.spec.objectKey}`;
}

/**
 * Reconciles one Upload: reads it from the cache, looks at its file while it is live, lets
 * {@link decideUpload} choose, then acts: file first, status (compare-and-swap) after.
 */
export class UploadReconciler {
  private readonly d: UploadReconcilerDeps;

  constructor(deps: UploadReconcilerDeps) {
    this.d = deps;
  }

  async reconcile(key: string): Promise<HandlerResult | undefined> {
    const d = this.d;
    const [account = '', name = '', ...rest] = key.split('/');
    const gone = rest.join('/');
    const upload = d.uploadCache.get(name);
    if (!upload || upload.spec.account !== account) {
      // The key of an Upload that is gone: its file goes too (an upload's, never a job's).
      if (gone.startsWith('uploads/') && gone.endsWith(`/${name}`) && isValidKey(gone))
        await d.blob.delete(gone);
      return undefined;
    }
    const now = d.now();
    const info = needsFile(upload, now) ? await d.blob.stat(upload.spec.objectKey) : undefined;
    const decision = decideUpload({
      upload,
      file: info ? { size: info.size } : undefined,
      now,
      settings: d.settings,
    });

    for (const action of decision.actions) {
      if (action.kind === 'deleteFile') await d.blob.delete(upload.spec.objectKey);
    }
    if (decision.status) {
      try {
        await d.uploads.updateStatus({ ...upload, status: decision.status });
      } catch (err) {
        // Changed since the cache saw it: the informer brings the new state and the key back.
        if (isConflict(err)) return { requeueAfterMs: 50 };
        throw err;
      }
      if (decision.status.phase === 'expired' && upload.status?.phase !== 'expired') {
        d.log.debug({ upload: name, account }, 'upload expired; file deleted');
      }
    }
    for (const action of decision.actions) {
      if (action.kind === 'deleteUpload') {
        await d.uploads.delete(name, { uid: upload.metadata.uid });
      } else if (action.kind === 'event') {
        void d.events.record(
          { apiVersion: API_VERSION, kind: 'Upload', name, uid: upload.metadata.uid },
          action.type,
          action.reason,
          action.message,
        );
      }
    }
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : undefined;
  }
}
