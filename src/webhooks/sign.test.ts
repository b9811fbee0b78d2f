import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  hasValidSignature,
  secretKey,
  signatureHeader,
  webhookHeaders,
} from './sign.ts';

// The example of the Standard Webhooks specification (and its reference libraries' tests).
const SPEC_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SPEC_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const SPEC_TIMESTAMP = 1614265330;
const SPEC_BODY = '{"test": 2432232314}';
const SPEC_SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

describe('webhook signatures', () => {
  it('reproduce the Standard Webhooks specification example', () => {
    expect(signatureHeader(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, [SPEC_SECRET])).toBe(SPEC_SIGNATURE);
  });

  it('are accepted by the standardwebhooks library', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({
      type: 'job.completed',
      timestamp: new Date().toISOString(),
      data: { jobId: 'j1' },
    });
    const headers = webhookHeaders('msg_1', Math.floor(Date.now() / 1000), body, [secret]);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('carry one signature per secret during a rotation, each accepted on its own', () => {
    const [oldSecret, newSecret, unrelated] = [
      generateWebhookSecret(),
      generateWebhookSecret(),
      generateWebhookSecret(),
    ];
    const body = '{"type":"job.failed"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders('msg_2', timestamp, body, [newSecret, oldSecret, newSecret]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(unrelated).verify(body, { ...headers })).toThrow();
    expect(hasValidSignature(headers['webhook-signature'], 'msg_2', timestamp, body, oldSecret)).toBe(true);
    expect(hasValidSignature(headers['webhook-signature'], 'msg_2', timestamp, `${body} `, oldSecret)).toBe(
      false,
    );
  });

  it.each([
    ['the body', (h: Record<string, string>) => h, '{"type":"job.completed"}'],
    ['the id', (h: Record<string, string>) => ({ ...h, 'webhook-id': 'msg_other' }), undefined],
    [
      'the timestamp',
      (h: Record<string, string>) => ({
        ...h,
        'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1),
      }),
      undefined,
    ],
  ])('fail verification when %s changes', (_, change, otherBody) => {
    const secret = generateWebhookSecret();
    const body = '{"type":"job.failed"}';
    const headers = webhookHeaders('msg_3', Math.floor(Date.now() / 1000), body, [secret]);
    expect(() => new Webhook(secret).verify(otherBody ?? body, change({ ...headers }))).toThrow();
  });

  it('generate distinct secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
    expect(generateWebhookSecret(() => Buffer.alloc(32, 1))).toBe(
      `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    );
  });

  it.each([
    'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'whsec_',
    'whsec_c2hvcnQ=',
    'whsec_!!!!MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  ])('refuse the malformed secret %j', (secret) => {
    expect(() => secretKey(secret)).toThrow(/whsec_/);
  });
});
