/** Why a webhook was refused. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as Fetch (Headers) or Node (IncomingHttpHeaders) hold them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string | undefined {
  if (h instanceof Headers) return h.get(name) ?? undefined;
  const v = h[name] ?? Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

const encoder = new TextEncoder();

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The key of a `whsec_<base64>` secret; a secret that is not one (cut short, a stray character) says so. */
function secretBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  try {
    if (encoded) return fromBase64(encoded);
  } catch {
    // atob's own error names no secret.
  }
  throw new WebhookVerificationError(
    'the webhook secret is not whsec_ followed by base64: check that it was copied whole',
  );
}

function toBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/** Constant-time comparison of two strings of signatures. */
function equal(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a webhook per Standard Webhooks: `webhook-signature` must hold a `v1,<base64
 * HMAC-SHA256 of "id.timestamp.body">` made with the secret (`whsec_<base64>`), and
 * `webhook-timestamp` must be within `toleranceSeconds` of now (replays are refused).
 * Answers the parsed body. Uses Web Crypto, so it runs in Node, Deno, browsers and workers.
 */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from this machine's clock (default 300 s). */
  toleranceSeconds?: number;
  now?: () => number;
}

export async function verifyWebhook<T = unknown>(
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  secret: string,
  opts: VerifyOptions = {},
): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
  const sent = Number(timestamp);
  const now = Math.floor((opts.now?.() ?? Date.now()) / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (!Number.isInteger(sent)) throw new WebhookVerificationError('webhook-timestamp is not a whole number');
  if (Math.abs(now - sent) > tolerance) {
    // Which way, and by how much: a receiver whose clock is wrong sees it here.
    const off = sent > now ? `${sent - now} s ahead of` : `${now - sent} s behind`;
    throw new WebhookVerificationError(
      `webhook timestamp is ${off} this machine's clock (tolerance ${tolerance} s): a replay, or a wrong clock`,
    );
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const key = await crypto.subtle.importKey(
    'raw',
    secretBytes(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = toBase64(
    await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`)),
  );
  const ok = signatures.split(' ').some((s) => {
    const [version, sig] = s.split(',', 2);
    return version === 'v1' && sig !== undefined && equal(sig, expected);
  });
  if (!ok) throw new WebhookVerificationError('no matching webhook signature');
  return JSON.parse(body) as T;
}
