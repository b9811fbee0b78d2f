import { describe, expect, it } from 'vitest';
import { unreachableHint } from './commands.ts';
import { loadSettings } from './settings.ts';

describe('where the service address came from, for the message of an unreachable service', () => {
  it.each([
    [{ GENJOBS_URL: 'http://api:8080' }, 'http://api:8080 is from GENJOBS_URL'],
    [
      { GENJOBS_DEV_DIR: '/nonexistent/dev' },
      'http://127.0.0.1:8080 is from the default: GENJOBS_URL is not set and /nonexistent/dev has no api-url (no dev mode there)',
    ],
  ])('%j', (env, hint) => {
    expect(unreachableHint(loadSettings(env))).toBe(hint);
  });
});
