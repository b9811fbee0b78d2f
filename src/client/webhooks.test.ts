import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createClient } from './index.ts';
import { verifyWebhook, WebhookVerificationError } from './webhooks.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'job.completed', data: { jobId: 'j1' } });

/** Headers signed by the reference implementation of Standard Webhooks. */
function signed(at: Date, id = 'msg_1', payload = body) {
  const signature = new Webhook(secret).sign(id, at, payload);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

describe('webhooks.verify', () => {
  it('accepts what the standardwebhooks package signs, as Node or Fetch headers', async () => {
    const h = signed(new Date());
    expect(await verifyWebhook(h, body, secret)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(new Headers(h), new TextEncoder().encode(body), secret)).toEqual(
      JSON.parse(body),
    );
  });

  it('agrees with the package on a rotated secret list (space-separated signatures)', async () => {
    const h = signed(new Date());
    h['webhook-signature'] = `v1,bm90IGl0 ${h['webhook-signature']}`;
    await expect(verifyWebhook(h, body, secret)).resolves.toBeDefined();
    expect(() => new Webhook(secret).verify(body, h)).not.toThrow();
  });

  it.each([
    ['a changed body', (h: Record<string, string>) => h, `${body} `],
    ['a changed id', (h: Record<string, string>) => ({ ...h, 'webhook-id': 'msg_2' }), body],
    ['another secret', (h: Record<string, string>) => h, body, `whsec_${randomBytes(32).toString('base64')}`],
    ['no signature header', (h: Record<string, string>) => ({ ...h, 'webhook-signature': '' }), body],
  ])('refuses %s, as the package does', async (_name, change, payload, key = secret) => {
    const h = change(signed(new Date()));
    await expect(verifyWebhook(h, payload, key)).rejects.toBeInstanceOf(WebhookVerificationError);
    expect(() => new Webhook(key).verify(payload, h)).toThrow();
  });

  it.each(['not-base64!!', 'whsec_', `whsec_${randomBytes(32).toString('base64')}%`])(
    'a secret that is not whsec_<base64> (%s) is a WebhookVerificationError naming the secret',
    async (bad) => {
      const err = await verifyWebhook(signed(new Date()), body, bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect((err as Error).message).toMatch(/webhook secret is not whsec_ followed by base64/);
    },
  );

  it('refuses a replay older than five minutes, as the package does', async () => {
    const h = signed(new Date(Date.now() - 6 * 60_000));
    await expect(verifyWebhook(h, body, secret)).rejects.toThrow(/timestamp/);
    expect(() => new Webhook(secret).verify(body, h)).toThrow();
  });
});

describe('a receiver whose clock is off', () => {
  it('is told by how much, and createClient().webhooks.verify takes the tolerance', async () => {
    const h = signed(new Date(Date.now() + 360_000)); // the sender 6 minutes ahead
    await expect(verifyWebhook(h, body, secret)).rejects.toThrow(/is 36\d s ahead of this machine's clock/);
    const client = createClient({ baseUrl: 'http://127.0.0.1:1' });
    expect(await client.webhooks.verify(h, body, secret, { toleranceSeconds: 600 })).toEqual(
      JSON.parse(body),
    );
  });
});
