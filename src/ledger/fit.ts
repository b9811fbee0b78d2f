/** What deciding a lease's jobs needs of each job. */
export interface LeaseJob {
  name: string;
  cost: number;
  /** Creation time in ms (the apiserver's is to the second: names break ties). */
  createdAt: number;
}

/** Deterministic order of a lease's jobs: creation time, then name. */
export function leaseOrder(a: LeaseJob, b: LeaseJob): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The jobs of a lease that its amount pays for: in {@link leaseOrder}, each job whose cost
 * and the costs of all jobs before it fit in the amount. An api replica draws at most the
 * amount, so all of its jobs fit whatever the order; the order only matters for a job that
 * names a lease it could not have drawn from, and makes every reader (admission, the close)
 * agree on which jobs those are.
 */
export function leaseFit(amount: number, jobs: readonly LeaseJob[]): Set<string> {
  const fitting = new Set<string>();
  let sum = 0;
  for (const j of [...jobs].sort(leaseOrder)) {
    sum += j.cost;
    if (sum > amount) break;
    fitting.add(j.name);
  }
  return fitting;
}
