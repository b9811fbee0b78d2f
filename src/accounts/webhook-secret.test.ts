import { describe, expect, it } from 'vitest';
import { inForce, webhookSecretName } from './webhook-secret.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const CURRENT = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const PREVIOUS = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

describe('inForce', () => {
  it.each([
    ['no previous secret', {}, [CURRENT]],
    [
      'a previous secret during the overlap',
      { previous: PREVIOUS, previousUntil: '2030-01-01T00:00:01Z' },
      [CURRENT, PREVIOUS],
    ],
    [
      'a previous secret after the overlap',
      { previous: PREVIOUS, previousUntil: '2030-01-01T00:00:00Z' },
      [CURRENT],
    ],
    ['a previous secret without an end (set by hand)', { previous: PREVIOUS }, [CURRENT, PREVIOUS]],
  ])('%s', (_, extra, want) => {
    expect(inForce({ account: 'acme', current: CURRENT, ...extra }, NOW)).toEqual(want);
  });
});

it('names the Secret after the account', () => {
  expect(webhookSecretName('acme')).toBe('genjobs-webhook-acme');
});
