import type { Account, GenerationJob } from '../../k8s/types.ts';

/**
 * Whether the ledger is done with a finished job: no per-job reservation waits for its
 * charge or refund, and the credit lease it names (if any) is closed. An open lease's close
 * counts its jobs by listing them, so a job deleted before that would read as credit never
 * drawn and its money would return to the balance a second time. The one question the
 * archiver asks the ledger. An Account not in the cache (deleted) holds nothing.
 */
export function settled(job: GenerationJob, account: Account | undefined): boolean {
  const s = account?.status;
  if (s?.reservations?.[job.metadata.name ?? ''] !== undefined) return false;
  return !(job.spec.lease && s?.leases?.[job.spec.lease]);
}
