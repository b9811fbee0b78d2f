import { z } from 'zod';
import { UPLOAD_CONTENT_TYPES } from '../../k8s/types.ts';

/**
 * Request and response shapes of the upload endpoints (spec 2.5, 4.5, 4.6). The document
 * declares the content type as the enum of the allowed eight, but it is parsed as a string:
 * a value outside them is its own error (400 INVALID_CONTENT_TYPE, spec 7), checked after
 * this schema, and media types are case-insensitive (RFC 9110), so `IMAGE/PNG` is taken.
 */
/**
 * No C0/C1 control character and no bidirectional control (U+202E shows "invoice\u202Egnp.exe"
 * as "invoiceexe.png"); not only whitespace (what JS trim() removes), so trimming leaves a name.
 */
const CONTROL = '\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const TRIMMED = '\\x20\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** The filename rule as a pattern for the document; written with escapes that JS and Python read alike. */
export const FILENAME_PATTERN = `^[^${CONTROL}]*[^${CONTROL}${TRIMMED}][^${CONTROL}]*$`;

/** An upload as the endpoints show it, for the document's examples. */
const FILE_ID_EXAMPLE = '3c2b1a09-8f7e-4d6c-b5a4-938271605f4e';
const FILE_URL_EXAMPLE = `https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/${FILE_ID_EXAMPLE}`;

export const PresignRequest = z
  .strictObject({
    filename: z
      .string()
      .trim()
      .min(1, 'filename must not be empty')
      .max(255, 'filename must be at most 255 characters')
      // Metadata only, never part of a storage key; control characters would still break
      // the headers and logs it may end up in.
      .refine(
        (s) => !new RegExp(`[${CONTROL}]`).test(s),
        'filename must not contain control or bidi characters',
      )
      // A lone surrogate (JSON's "\ud800") would be stored as U+FFFD: not the name that was sent.
      .refine((s) => !/\p{Cs}/u.test(s), 'filename must be valid Unicode (no lone surrogate)')
      .describe('Name of the file (metadata only)')
      .meta({ pattern: FILENAME_PATTERN }),
    contentType: z
      .string()
      .min(1, 'contentType must not be empty')
      .max(255)
      .describe(`One of ${UPLOAD_CONTENT_TYPES.join(', ')} (case-insensitive)`)
      // The JSON Schema of the document: the closed set a generated client offers.
      .meta({ enum: [...UPLOAD_CONTENT_TYPES] }),
  })
  .meta({ examples: [{ filename: 'photo.png', contentType: 'image/png' }] });

export const PresignResult = z
  .object({
    uploadUrl: z
      .string()
      .describe('PUT the file here with the same Content-Type, within 15 minutes (its `expires`)'),
    fileUrl: z.string(),
    fileId: z.uuid(),
    expiresAt: z.iso
      .datetime()
      .describe('When the file is deleted (60 minutes after the presign); the uploadUrl expires sooner'),
    maxSize: z.number().int().positive(),
  })
  .meta({
    examples: [
      {
        uploadUrl: `${FILE_URL_EXAMPLE}?expires=1767226500&contentType=image%2Fpng&maxSize=10485760&signature=3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AB`,
        fileUrl: FILE_URL_EXAMPLE,
        fileId: FILE_ID_EXAMPLE,
        expiresAt: '2026-01-01T01:00:00.000Z',
        maxSize: 10_485_760,
      },
    ],
  });

export const UploadRecord = z
  .object({
    id: z.string(),
    filename: z.string(),
    contentType: z.enum(UPLOAD_CONTENT_TYPES),
    fileUrl: z.string(),
    status: z.enum(['pending', 'expired']),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    uploaded: z
      .boolean()
      .optional()
      .describe(
        'Not in the spec: whether the file has been PUT (a pending upload; fileUrl answers 404 until it has). Absent once expired, or when the store could not be asked.',
      ),
    sizeBytes: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Not in the spec: the stored size, once uploaded.'),
  })
  .meta({
    examples: [
      {
        id: FILE_ID_EXAMPLE,
        filename: 'photo.png',
        contentType: 'image/png',
        fileUrl: FILE_URL_EXAMPLE,
        status: 'pending',
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-01T01:00:00.000Z',
        uploaded: true,
        sizeBytes: 482_113,
      },
    ],
  });
