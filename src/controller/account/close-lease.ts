import { phaseOf } from '../../jobs/record.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import type { Account, GenerationJob } from '../../k8s/types.ts';
import { leaseFit } from '../../ledger/fit.ts';
import type { LeaseJobState } from '../../ledger/lease-ops.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import { createdAt } from '../../ledger/money.ts';
import type { Logger } from '../../log.ts';

/**
 * Counts and closes credit leases whose term and grace have passed: no create naming them
 * can land any more, so a fresh list (not the cache, which may lag) holds all their jobs,
 * selected by the lease their immutable spec names (a label could be edited away). Of each
 * lease's jobs, those it pays for (leaseFit): completed ones are spent, unfinished ones (a
 * lease whose replica died, or one held open past GENJOBS_LEASE_HOLD) get a reservation
 * each, and everything else returns to the balance, in one ledger operation per lease (the
 * ledger writes them together).
 */
export async function closeLeases(
  d: {
    jobs: CustomResources<GenerationJob>;
    ledger: Ledger;
    log: Logger;
    accountCache: { get(n: string): Account | undefined };
  },
  account: string,
  ids: string[],
): Promise<void> {
  const leases = d.accountCache.get(account)?.status?.leases ?? {};
  const due = ids.filter((id) => leases[id] !== undefined);
  if (due.length === 0) return;
  await Promise.all(
    due.map(async (id) => {
      const listed = await d.jobs.listAll({ fieldSelector: `spec.lease=${id}` });
      const jobs = listed.filter((j) => j.spec.account === account);
      const fits = leaseFit(
        leases[id]!.amount,
        jobs.map((j) => ({
          name: j.metadata.name ?? '',
          cost: j.spec.costMicroCents,
          createdAt: createdAt(j),
        })),
      );
      const paid = jobs
        .filter((j) => fits.has(j.metadata.name ?? ''))
        .map((j) => ({ name: j.metadata.name ?? '', cost: j.spec.costMicroCents, state: stateOf(j) }));
      if (jobs.length > paid.length) {
        d.log.warn(
          { account, lease: id, unpaid: jobs.length - paid.length },
          'jobs named a credit lease that could not pay for them; they never run',
        );
      }
      await d.ledger.run(account, { kind: 'closeLease', id, jobs: paid });
    }),
  );
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

/**
 * Leases due within this window of each other are closed together (one list, one Account
 * write), and a lease held open for its unfinished jobs is looked at again this often: up
 * to 30 s, a third of the grace. A close only does the bookkeeping (a lease's unused credit
 * went back when its replica released it, a failed job's refund is not waiting for it), so
 * closing later holds no money back.
 */
export const closeBatchMs = (graceMs: number) => Math.max(1, Math.min(30_000, Math.floor(graceMs / 3)));
