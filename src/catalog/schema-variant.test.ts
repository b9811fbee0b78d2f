import { describe, expect, it } from 'vitest';
import { runtimeSchema } from './schema-variant.ts';

const http = (authSecretRef: unknown) => ({
  type: 'http',
  url: 'https://models.example/predict',
  authSecretRef,
  maxConcurrency: 1,
  typicalSeconds: 5,
});

describe('runtime.authSecretRef', () => {
  it('takes a Secret name and data key', () => {
    expect(runtimeSchema.safeParse(http({ name: 'acme-token', key: 'token' })).success).toBe(true);
  });

  it.each([
    [{ name: 'Acme_Token', key: 'token' }, /Secret name/],
    [{ name: '../genjobs-blob', key: 'token' }, /Secret name/],
    [{ name: 'acme-token', key: 'a/b' }, /Secret data key/],
  ])('refuses %j', (ref, message) => {
    const r = runtimeSchema.safeParse(http(ref));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message).join('; ')).toMatch(message);
  });
});
