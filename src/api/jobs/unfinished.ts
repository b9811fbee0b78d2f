import { phaseOf } from '../../jobs/record.ts';
import type { Informer } from '../../k8s/informer.ts';
import { type GenerationJob, isTerminal } from '../../k8s/types.ts';

const UNFINISHED = 'unfinished-by-account';

/**
 * Indexes the job cache by the account of each unfinished job, and answers how many an
 * account has without copying them: the plan and the live-job cap ask on every submit, and
 * an account's finished jobs stay cached for minutes to days. Call once, before the cache
 * starts.
 */
export function unfinishedByAccount(
  jobs: Pick<Informer<GenerationJob>, 'addIndex' | 'countByIndex'>,
): (account: string) => number {
  jobs.addIndex(UNFINISHED, (j) => (isTerminal(phaseOf(j)) ? [] : [j.spec.account]));
  return (account) => jobs.countByIndex(UNFINISHED, account);
}
