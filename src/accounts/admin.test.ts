import { describe, expect, it } from 'vitest';
import type { Resources } from '../k8s/resources.ts';
import { AccountAdmin } from './admin.ts';

describe('AccountAdmin.createKey', () => {
  it('refuses a lifetime of 0 (a key that never expires is one without a lifetime), writing nothing', async () => {
    // Nothing to read or write: the refusal comes first.
    const admin = new AccountAdmin({} as Resources);
    for (const ms of [0, -1])
      await expect(admin.createKey('acme', ['submit_job'], ms)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/lifetime is more than 0/),
      });
  });
});
