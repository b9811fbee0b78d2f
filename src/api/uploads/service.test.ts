import { describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../blob/filesystem.ts';
import { BlobSigner } from '../../blob/signing.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Upload } from '../../k8s/types.ts';
import { UploadService } from './service.ts';

const MIN = 60_000;
const presignedAt = Date.parse('2026-03-01T12:00:00.123Z');

const anUpload = (phase?: 'pending' | 'expired'): Upload => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'Upload',
  // The apiserver's creationTimestamp has whole seconds, and comes a moment after presign.
  metadata: { name: 'u1', creationTimestamp: '2026-03-01T12:00:01Z' },
  spec: {
    account: 'a',
    filename: 'cat.png',
    contentType: 'image/png',
    maxSize: 1,
    objectKey: 'uploads/a/u1',
    expiresAt: new Date(presignedAt + 60 * MIN).toISOString(),
  },
  ...(phase ? { status: { phase } } : {}),
});

function serviceAt(now: number): UploadService {
  const signer = new BlobSigner({ secrets: ['s'.repeat(32)], now: () => now });
  return new UploadService({
    // The record is built from the object alone: nothing here reaches a cluster or a disk.
    uploads: {} as CustomResources<Upload>,
    uploadCache: {} as Informer<Upload>,
    store: new FilesystemBlobStore({
      dir: '/nonexistent',
      publicBaseUrl: 'http://x/files',
      signer,
      grantMaxSize: 1,
    }),
    now: () => now,
  });
}

describe('an upload status record', () => {
  it('has createdAt exactly 60 minutes before expiresAt (the presign instant)', () => {
    const r = serviceAt(presignedAt).record(anUpload());
    expect(Date.parse(r.expiresAt) - Date.parse(r.createdAt)).toBe(60 * MIN);
    expect(r.createdAt).toBe('2026-03-01T12:00:00.123Z');
  });

  it('reads expired from the clock once expiresAt has passed, before the controller marks it', () => {
    expect(serviceAt(presignedAt + 60 * MIN - 1).record(anUpload()).status).toBe('pending');
    expect(serviceAt(presignedAt + 60 * MIN).record(anUpload()).status).toBe('expired');
    expect(serviceAt(presignedAt).record(anUpload('expired')).status).toBe('expired');
  });
});
