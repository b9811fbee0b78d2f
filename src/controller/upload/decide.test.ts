import { describe, expect, it } from 'vitest';
import { API_VERSION, type Upload, type UploadStatus } from '../../k8s/types.ts';
import { DEFAULT_UPLOAD_SETTINGS, decideUpload, needsFile } from './decide.ts';

const MIN = 60_000;
const CREATED = Date.parse('2030-01-01T10:00:00.000Z');
const EXPIRES = CREATED + 60 * MIN;
const MAX = 10 * 1024 * 1024;

function anUpload(status?: UploadStatus): Upload {
  return {
    apiVersion: API_VERSION,
    kind: 'Upload',
    metadata: { name: 'f1', uid: 'u1', creationTimestamp: new Date(CREATED).toISOString() },
    spec: {
      account: 'acme',
      filename: 'cat.png',
      contentType: 'image/png',
      maxSize: MAX,
      objectKey: 'uploads/acme/f1',
      expiresAt: new Date(EXPIRES).toISOString(),
    },
    ...(status ? { status } : {}),
  };
}

const at = (minutes: number) => CREATED + minutes * MIN;
const iso = (t: number) => new Date(t).toISOString();
const DAY = DEFAULT_UPLOAD_SETTINGS.expiredRetentionMs;

describe('decideUpload', () => {
  it.each([
    {
      name: 'a new upload without a file is marked pending and looked at again in 30 s',
      upload: anUpload(),
      file: undefined,
      now: at(0),
      want: { status: { phase: 'pending' }, actions: [], requeueAfterMs: 30_000 },
    },
    {
      name: 'an uploaded file has its size recorded',
      upload: anUpload({ phase: 'pending' }),
      file: { size: 1234 },
      now: at(1),
      want: { status: { phase: 'pending', size: 1234 }, actions: [], requeueAfterMs: 30_000 },
    },
    {
      name: 'nothing changed: no status write',
      upload: anUpload({ phase: 'pending', size: 1234 }),
      file: { size: 1234 },
      now: at(2),
      want: { actions: [], requeueAfterMs: 30_000 },
    },
    {
      name: 'a file exactly at maxSize is kept',
      upload: anUpload({ phase: 'pending' }),
      file: { size: MAX },
      now: at(2),
      want: { status: { phase: 'pending', size: MAX }, actions: [], requeueAfterMs: 30_000 },
    },
    {
      name: 'the last look comes right after the PUT address closed and its grace passed',
      upload: anUpload({ phase: 'pending' }),
      file: undefined,
      now: at(20) - 10_000,
      want: { actions: [], requeueAfterMs: 10_000 },
    },
    {
      name: 'after the last look nothing happens until the expiry',
      upload: anUpload({ phase: 'pending', size: 5 }),
      file: { size: 5 },
      now: at(20),
      want: { actions: [], requeueAfterMs: 40 * MIN },
    },
  ])('$name', ({ upload, file, now, want }) => {
    expect(decideUpload({ upload, file, now })).toEqual(want);
  });

  it('deletes a file over maxSize, says so in a Warning, and forgets its size', () => {
    const d = decideUpload({
      upload: anUpload({ phase: 'pending', size: 10 }),
      file: { size: MAX + 1 },
      now: at(3),
    });
    expect(d.status).toEqual({ phase: 'pending' });
    expect(d.actions[0]).toEqual({ kind: 'deleteFile' });
    expect(d.actions[1]).toMatchObject({ kind: 'event', type: 'Warning', reason: 'FileTooLarge' });
    expect(d.actions[1]).toMatchObject({ message: expect.stringContaining(String(MAX + 1)) });
  });

  it.each([
    ['at expiresAt', EXPIRES],
    ['long after expiresAt (a controller that was down)', EXPIRES + 5 * 3_600_000],
  ])('expires %s: file deleted first, then status expired, then the record kept a day', (_, now) => {
    const d = decideUpload({ upload: anUpload({ phase: 'pending', size: 7 }), file: undefined, now });
    expect(d).toEqual({
      status: { phase: 'expired', size: 7, expiredAt: iso(now) },
      actions: [{ kind: 'deleteFile' }],
      requeueAfterMs: DAY,
    });
  });

  it('never waits past expiresAt, even mid PUT window', () => {
    const settings = { ...DEFAULT_UPLOAD_SETTINGS, statIntervalMs: 2 * 3_600_000 };
    const d = decideUpload({ upload: anUpload(), file: undefined, now: at(59), settings });
    expect(d.requeueAfterMs).toBe(MIN);
  });

  it.each([
    { expiredAt: EXPIRES, now: EXPIRES + 1000, want: { actions: [], requeueAfterMs: DAY - 1000 } },
    { expiredAt: EXPIRES, now: EXPIRES + DAY, want: { actions: [{ kind: 'deleteUpload' }] } },
    { expiredAt: EXPIRES + MIN, now: EXPIRES + DAY, want: { actions: [], requeueAfterMs: MIN } },
  ])('an expired upload is removed a day after it expired ($now)', ({ expiredAt, now, want }) => {
    const upload = anUpload({ phase: 'expired', expiredAt: iso(expiredAt) });
    expect(decideUpload({ upload, file: undefined, now })).toEqual(want);
  });

  it.each([
    [anUpload(), at(0), true],
    [anUpload({ phase: 'pending' }), EXPIRES - 1, true],
    [anUpload({ phase: 'pending' }), EXPIRES, false],
    [anUpload({ phase: 'expired', expiredAt: iso(EXPIRES) }), at(10), false],
  ])('needsFile %#', (upload, now, want) => {
    expect(needsFile(upload, now)).toBe(want);
  });
});

describe('decideUpload: an expired Upload does not linger', () => {
  it('deletes the Upload resource 15 minutes after it expired by default, not a day later', () => {
    const expired = anUpload({ phase: 'expired', expiredAt: iso(EXPIRES) });
    expect(decideUpload({ upload: expired, file: undefined, now: EXPIRES + 14 * MIN })).toEqual({
      actions: [],
      requeueAfterMs: MIN,
    });
    expect(decideUpload({ upload: expired, file: undefined, now: EXPIRES + 15 * MIN }).actions).toEqual([
      { kind: 'deleteUpload' },
    ]);
  });
});
