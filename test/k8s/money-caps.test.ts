import { expect, it } from 'vitest';
import { statusCode } from '../../src/k8s/errors.ts';
import { resources } from '../../src/k8s/resources.ts';
import { testNamespace } from '../support/cluster.ts';

const CAP = 1_000_000_000_000_000;

async function refused(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
  } catch (err) {
    return statusCode(err);
  }
  return 200;
}

it('the CRDs refuse money amounts past 10^15 micro-cents, where sums would lose exactness', async () => {
  const r = resources(await testNamespace('money-caps'));
  const account = (name: string, grantedMicroCents: number) =>
    r.accounts.create({ metadata: { name }, spec: { plan: 'pro', grantedMicroCents } });
  expect(await refused(account('at-cap', CAP))).toBe(200);
  expect(await refused(account('past-cap', 2 ** 53))).toBe(422);
  const job = (name: string, costMicroCents: number) =>
    r.jobs.create({
      metadata: { name },
      spec: { account: 'at-cap', model: 'a/b/text-to-image', version: 'v1.0', input: {}, costMicroCents },
    });
  expect(await refused(job('j-ok', CAP))).toBe(200);
  expect(await refused(job('j-huge', CAP + 1))).toBe(422);
});
