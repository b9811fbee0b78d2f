import type { Account, GenerationJob } from '../../k8s/types.ts';
import { holdsReservation } from '../../ledger/ops.ts';

/**
 * Whether the ledger is done with a finished job: its charge or refund is written, so no
 * Account write will ever need the job again. The one question the archiver asks the
 * ledger; as money moves to other shapes (credit leases) this answers from them.
 * An Account not in the cache (deleted) holds nothing.
 */
export function settled(job: GenerationJob, account: Account | undefined): boolean {
  return !holdsReservation(account, job.metadata.name ?? '');
}
