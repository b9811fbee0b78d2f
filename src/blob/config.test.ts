import { describe, expect, it } from 'vitest';
import { blobConfigSchema } from './config.ts';
import { createBlob } from './create.ts';

const secret = 'x'.repeat(32);

describe('blob configuration', () => {
  it('defaults to the filesystem store served by the api', () => {
    const config = blobConfigSchema.parse({ signingSecret: secret });
    expect(config).toMatchObject({
      type: 'filesystem',
      publicBaseUrl: 'http://127.0.0.1:8080/files',
      outputMaxSize: 1024 ** 3,
    });
    expect(createBlob(config, { now: Date.now }).store.type).toBe('filesystem');
  });

  it('builds an s3 store with bucket and public URL', () => {
    const config = blobConfigSchema.parse({
      type: 's3',
      signingSecret: secret,
      publicBaseUrl: 'https://cdn.example.com',
      s3: { bucket: 'genjobs', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true },
    });
    const { store } = createBlob(config, { now: Date.now });
    expect(store.type).toBe('s3');
    expect(store.publicUrl('uploads/a/b')).toBe('https://cdn.example.com/uploads/a/b');
  });

  it.each([
    ['a missing signing secret', {}, 'signingSecret'],
    ['a short signing secret', { signingSecret: 'short' }, 'signingSecret'],
    ['an unknown type', { signingSecret: secret, type: 'gcs' }, 'type'],
    [
      's3 without bucket settings',
      { signingSecret: secret, type: 's3', publicBaseUrl: 'https://cdn.example' },
      's3',
    ],
    [
      's3 without a public URL',
      { signingSecret: secret, type: 's3', s3: { bucket: 'abc' } },
      'publicBaseUrl',
    ],
    ['a non-http public URL', { signingSecret: secret, publicBaseUrl: 'file:///etc' }, 'publicBaseUrl'],
    ['an unknown field', { signingSecret: secret, bucket: 'abc' }, ''],
  ])('refuses %s', (_, input, path) => {
    const result = blobConfigSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});
