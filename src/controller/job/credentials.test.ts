import { describe, expect, it } from 'vitest';
import { credentialsRefusal, MODEL_CREDENTIALS_LABEL } from './credentials.ts';

describe('credentialsRefusal', () => {
  it.each([
    ['a labelled Secret', { metadata: { labels: { [MODEL_CREDENTIALS_LABEL]: 'true' } } }, undefined],
    [
      'an unlabelled Secret',
      { metadata: { name: 'genjobs-blob' } },
      /not labelled genjobs.io\/model-credentials/,
    ],
    [
      'a label set to false',
      { metadata: { labels: { [MODEL_CREDENTIALS_LABEL]: 'false' } } },
      /not labelled/,
    ],
    ['no Secret at all', undefined, /does not exist/],
  ])('%s', (_name, secret, expected) => {
    const refusal = credentialsRefusal('s', secret);
    if (expected === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(expected);
  });
});
