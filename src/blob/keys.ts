import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';

// One path segment: lowercase letters, digits, '.', '_' and '-', starting and ending with a
// letter or digit, so '.', '..' and hidden names can never appear. No percent-decoding is
// ever applied to a key, so '%2e%2e' stays three harmless characters that fail this test.
const SEGMENT = '[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?';
const KEY_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT}){0,7}$`);
const PREFIX_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT}){0,6}/$`);
const MAX_KEY_LENGTH = 512;

/**
 * Whether `key` is an object key this service could have generated: 1 to 8 '/'-separated
 * segments of `[a-z0-9._-]`, none empty, none starting or ending with a dot, no '..'.
 */
export function isValidKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_PATTERN.test(key) && !key.includes('..');
}

/** A key prefix: valid key segments followed by '/'. Grants and deletes work on whole folders only. */
export function isValidPrefix(prefix: string): boolean {
  return prefix.length <= MAX_KEY_LENGTH && PREFIX_PATTERN.test(prefix) && !prefix.includes('..');
}

/** Throws a VALIDATION_ERROR unless {@link isValidKey}. Internal callers pass generated keys only. */
export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new AppError('VALIDATION_ERROR', `invalid object key: ${JSON.stringify(key)}`);
}

/** Throws a VALIDATION_ERROR unless {@link isValidPrefix}. */
export function assertValidPrefix(prefix: string): void {
  if (!isValidPrefix(prefix)) {
    throw new AppError('VALIDATION_ERROR', `invalid object key prefix: ${JSON.stringify(prefix)}`);
  }
}

/** Whether `key` is one of the service's own: an upload (uploads/…) or a job output (jobs/…). */
export function isServiceKey(key: string): boolean {
  return isValidKey(key) && (key.startsWith('uploads/') || key.startsWith('jobs/'));
}

/**
 * The folder of an account's uploads: a digest of the Account's uid, which no one outside the
 * cluster knows. A file's URL is public (handed to browsers, put in job inputs) and must not
 * tell whose file it is: a digest of the name could be confirmed by guessing names, and
 * would be a new account's of the same name too.
 */
export function uploadFolder(accountUid: string): string {
  return createHash('sha256').update(`genjobs uploads of ${accountUid}`).digest('hex').slice(0, 24);
}

/** Key of an uploaded file: `uploads/<uploadFolder(accountUid)>/<fileId>`. The user's filename is never part of it. */
export function uploadKey(accountUid: string, fileId: string): string {
  const key = `uploads/${uploadFolder(accountUid)}/${fileId}`;
  assertValidKey(key);
  return key;
}

/** The folder a job's worker may write to: `jobs/<jobId>/`. */
export function jobPrefix(jobId: string): string {
  const prefix = `jobs/${jobId}/`;
  assertValidPrefix(prefix);
  return prefix;
}

/** The job whose folder holds `key` (`jobs/<jobId>/…`), or undefined for any other key. */
export function jobOfKey(key: string): string | undefined {
  return /^jobs\/([^/]+)\//.exec(key)?.[1];
}

/** Key of one output of a job: `jobs/<jobId>/<name>`, name chosen by the worker (e.g. `output-0.mp4`). */
export function jobOutputKey(jobId: string, name: string): string {
  const key = `${jobPrefix(jobId)}${name}`;
  assertValidKey(key);
  return key;
}
