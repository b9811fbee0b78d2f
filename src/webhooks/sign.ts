import { createHmac, randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The Standard Webhooks headers of one delivery attempt. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new account webhook secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(randomBytes: (size: number) => Buffer = nodeRandomBytes): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_…` secret; throws on anything else. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  const key = Buffer.from(encoded, 'base64');
  // Standard Webhooks keys are 24 to 64 bytes; re-encoding catches stray characters,
  // which Buffer.from would silently skip.
  if (key.length < 24 || key.length > 64 || key.toString('base64') !== encoded) {
    throw new Error('a webhook secret is whsec_ followed by the base64 of 24 to 64 bytes');
  }
  return key;
}

/**
 * `webhook-signature` value for a body: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * one per secret, space-separated, so receivers holding either secret of a rotation accept it.
 */
export function signatureHeader(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content).digest('base64')}`)
    .join(' ');
}

/** All three Standard Webhooks headers. `webhook-id` stays the same across retries of one event. */
export function webhookHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(id, timestampSeconds, body, [...new Set(secrets)]),
  };
}

/** Whether any `v1` signature in `header` was made with `secret` over this message (for tests and tools). */
export function hasValidSignature(
  header: string,
  id: string,
  timestampSeconds: number,
  body: string,
  secret: string,
): boolean {
  const expected = Buffer.from(signatureHeader(id, timestampSeconds, body, [secret]).slice(3), 'base64');
  return header.split(' ').some((part) => {
    const [version, signature = ''] = part.split(',', 2);
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
