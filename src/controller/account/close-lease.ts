import { LEASE_LABEL } from '../../jobs/labels.ts';
import { phaseOf } from '../../jobs/record.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Account, GenerationJob } from '../../k8s/types.ts';
import { leaseFit } from '../../ledger/fit.ts';
import type { LeaseJobState } from '../../ledger/lease-ops.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import { createdAt } from '../../ledger/money.ts';
import type { Logger } from '../../log.ts';

/**
 * Counts and closes one credit lease whose term and grace have passed: no create naming it
 * can land any more, so a fresh list (not the cache, which may lag) holds all its jobs.
 * Of those the lease pays for (leaseFit), completed ones are spent, unfinished ones get a
 * reservation each, and everything else returns to the balance, in one ledger operation.
 */
export async function closeLease(
  d: {
    jobs: CustomResources<GenerationJob>;
    ledger: Ledger;
    log: Logger;
    accountCache: { get(n: string): Account | undefined };
  },
  account: string,
  id: string,
): Promise<void> {
  const amount = d.accountCache.get(account)?.status?.leases?.[id]?.amount;
  if (amount === undefined) return;
  const listed = await d.jobs.listAll({ labelSelector: `${LEASE_LABEL}=${id}` });
  const jobs = listed.filter((j) => j.spec.lease === id && j.spec.account === account);
  const fits = leaseFit(
    amount,
    jobs.map((j) => ({ name: j.metadata.name ?? '', cost: j.spec.costMicroCents, createdAt: createdAt(j) })),
  );
  const paid = jobs
    .filter((j) => fits.has(j.metadata.name ?? ''))
    .map((j) => ({ name: j.metadata.name ?? '', cost: j.spec.costMicroCents, state: stateOf(j) }));
  const r = await d.ledger.run(account, { kind: 'closeLease', id, jobs: paid });
  if (jobs.length > paid.length) {
    d.log.warn(
      { account, lease: id, unpaid: jobs.length - paid.length },
      'jobs named a lease that could not pay for them',
    );
  }
  if (r.ok)
    d.log.debug?.({ account, lease: id, jobs: paid.length, returned: r.amount }, 'credit lease closed');
}

function stateOf(job: GenerationJob): LeaseJobState {
  const phase = phaseOf(job);
  switch (phase) {
    case 'completed':
      return 'completed';
    case 'failed':
    case 'cancelled':
      return 'returned';
    case 'pending':
    case 'processing':
      return 'unfinished';
  }
}
