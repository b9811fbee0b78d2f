import { readFile } from 'node:fs/promises';
import type { Account, GenerationJob } from '../../src/k8s/types.ts';
import { isTerminal } from '../../src/k8s/types.ts';
import { leaseFit } from '../../src/ledger/fit.ts';
import { createdAt } from '../../src/ledger/money.ts';
import { holding, imbalance } from '../../src/ledger/ops.ts';
import type { Received } from '../webhooks/receiver.ts';
import type { Observed } from './load.ts';

/** One invariant, how many things it looked at, and what broke it. */
export interface CheckResult {
  name: string;
  checked: number;
  violations: string[];
}

/**
 * The ledger's view of an Account, read through one function so that a new kind of held
 * credit (credit leases, say) is added here once and every check follows: `imbalance` is
 * zero for a whole ledger, `held` is credit set aside for unfinished work.
 */
export function ledgerOf(account: Account): {
  imbalance: number;
  held: number;
  spent: number;
  balance: number;
} {
  const s = account.status ?? {};
  return {
    imbalance: imbalance(s),
    // Per-job reservations plus what open credit leases still hold (amount less refunds).
    held:
      sum(s.reservations) + Object.values(s.leases ?? {}).reduce((a, l) => a + l.amount - sum(l.refunded), 0),
    spent: s.spentMicroCents ?? 0,
    balance: s.balanceMicroCents ?? 0,
  };
}

const sum = (m: Record<string, number> | undefined) => Object.values(m ?? {}).reduce((a, b) => a + b, 0);

const phase = (j: GenerationJob) => j.status?.phase ?? 'pending';

/** Every job the suite knows of (answered or still in the cluster) is finished. */
export function everyJobTerminal(jobs: GenerationJob[], observed: Observed): CheckResult {
  const byName = new Map(jobs.map((j) => [j.metadata.name ?? '', j]));
  const violations: string[] = [];
  for (const j of jobs) if (!isTerminal(phase(j))) violations.push(`${j.metadata.name} is still ${phase(j)}`);
  for (const id of observed.submitted.keys())
    if (!byName.has(id)) violations.push(`${id} was answered 200 and no longer exists`);
  return { name: 'every job reached a terminal state', checked: byName.size, violations };
}

/**
 * `balance + Σ held + spent == applied grant` on every account, to the micro-cent; nothing
 * is held once every job has finished; and what was spent is exactly the cost of the
 * account's completed jobs (so no failed or cancelled job was charged, none refunded twice).
 */
export function ledgersWhole(accounts: Account[], jobs: GenerationJob[]): CheckResult {
  const violations: string[] = [];
  for (const a of accounts) {
    const name = a.metadata.name ?? '';
    const l = ledgerOf(a);
    if (l.imbalance !== 0) violations.push(`${name}: imbalance ${l.imbalance} micro-cents`);
    if (l.held !== 0) violations.push(`${name}: ${l.held} micro-cents still held with every job finished`);
    const completed = jobs
      .filter((j) => j.spec.account === name && phase(j) === 'completed')
      .reduce((sum, j) => sum + j.spec.costMicroCents, 0);
    if (completed !== l.spent) violations.push(`${name}: spent ${l.spent}, completed jobs cost ${completed}`);
  }
  return {
    name: 'balance + held + spent == grant; spent == completed',
    checked: accounts.length,
    violations,
  };
}

/** Every cancel answered 200 left its job cancelled with the promised refund. */
export function cancelsHeld(jobs: GenerationJob[], observed: Observed): CheckResult {
  const byName = new Map(jobs.map((j) => [j.metadata.name ?? '', j]));
  const violations: string[] = [];
  for (const [id, refunded] of observed.cancelled) {
    const j = byName.get(id);
    if (!j) violations.push(`${id}: cancelled (200) and gone`);
    else if (phase(j) !== 'cancelled') violations.push(`${id}: cancel answered 200, job is ${phase(j)}`);
    else if (j.status?.refundedMicroCents !== refunded || refunded !== j.spec.costMicroCents)
      violations.push(
        `${id}: refund ${j.status?.refundedMicroCents} of cost ${j.spec.costMicroCents}, answered ${refunded}`,
      );
  }
  return {
    name: 'every cancel answered 200 is cancelled and refunded',
    checked: observed.cancelled.size,
    violations,
  };
}

/**
 * No attempt ran twice: a worker Pod's name is fixed by its job and attempt
 * (`gj-<job>-<n>`), and the node agent logs every container it starts, across its restarts.
 */
export async function attemptsRanOnce(agentLog: string): Promise<CheckResult> {
  const starts = new Map<string, number>();
  for (const line of (await readFile(agentLog, 'utf8')).split('\n')) {
    if (!line.includes('"container started"')) continue;
    try {
      const pod = (JSON.parse(line) as { pod?: string }).pod;
      if (pod) starts.set(pod, (starts.get(pod) ?? 0) + 1);
    } catch {
      // A line cut short by a SIGKILL.
    }
  }
  const violations = [...starts].filter(([, n]) => n > 1).map(([pod, n]) => `${pod} started ${n} times`);
  return { name: 'no attempt ran twice (worker Pod starts)', checked: starts.size, violations };
}

/**
 * Every finished job that asked for a webhook got one delivery at least, all of its
 * deliveries with the same `webhook-id` and a type that matches how the job ended. A
 * delivery is the job's by the body's `data.jobId` (the history keeps a webhook address's
 * origin only, so an archived job's address does not name its receiver's path).
 */
export function webhooksDelivered(jobs: GenerationJob[], received: Received[]): CheckResult {
  const violations: string[] = [];
  let checked = 0;
  const byJob = new Map<string, Received[]>();
  for (const r of received) {
    const jobId = (JSON.parse(r.body) as { data?: { jobId?: string } }).data?.jobId ?? '';
    byJob.set(jobId, [...(byJob.get(jobId) ?? []), r]);
  }
  for (const j of jobs) {
    const p = phase(j);
    if (!j.spec.webhookUrl || (p !== 'completed' && p !== 'failed')) continue;
    checked++;
    const got = byJob.get(j.metadata.name ?? '') ?? [];
    const ids = new Set(got.map((r) => r.headers['webhook-id']));
    if (got.length === 0) violations.push(`${j.metadata.name}: ${p}, no webhook delivered`);
    else if (ids.size !== 1)
      violations.push(`${j.metadata.name}: ${ids.size} webhook-ids over ${got.length} deliveries`);
    for (const r of got) {
      const type = (JSON.parse(r.body) as { type?: string }).type;
      if (type !== `job.${p}`) violations.push(`${j.metadata.name}: ${p}, webhook said ${type}`);
    }
  }
  return { name: 'every webhook delivered with one stable webhook-id', checked, violations };
}

/**
 * The pending jobs whose money their account holds (a reservation, or an open lease that
 * pays for them): the ones the controller may start, and should, while a slot is free.
 */
/**
 * Every finished job is in the archive, and none is still a resource once the archiver had
 * its time: `jobs` are live and archived jobs together, `live` the resources, `archived` the
 * names the archive holds.
 */
export function archivedAndGone(
  jobs: GenerationJob[],
  live: GenerationJob[],
  archived: ReadonlySet<string>,
): CheckResult {
  const finished = jobs.filter((j) => isTerminal(j.status?.phase));
  return {
    name: 'every finished job archived, then its resource deleted',
    checked: finished.length,
    violations: [
      ...finished
        .filter((j) => !archived.has(j.metadata.name ?? ''))
        .map((j) => `${j.metadata.name} (${j.status?.phase}) is not in the archive`),
      ...live
        .filter((j) => isTerminal(j.status?.phase))
        .map(
          (j) => `${j.metadata.name} (${j.status?.phase} at ${j.status?.completedAt}) is still a resource`,
        ),
    ],
  };
}

export function paidPending(jobs: GenerationJob[], accounts: Account[]): GenerationJob[] {
  const byName = new Map(accounts.map((a) => [a.metadata.name ?? '', a]));
  const byLease = new Map<string, GenerationJob[]>();
  for (const j of jobs)
    if (j.spec.lease) byLease.set(j.spec.lease, [...(byLease.get(j.spec.lease) ?? []), j]);
  const fits = (lease: string, j: GenerationJob) => {
    const amount = byName.get(j.spec.account)?.status?.leases?.[lease]?.amount ?? 0;
    const members = (byLease.get(lease) ?? []).map((m) => ({
      name: m.metadata.name ?? '',
      cost: m.spec.costMicroCents,
      createdAt: createdAt(m),
    }));
    return leaseFit(amount, members).has(j.metadata.name ?? '');
  };
  return jobs.filter(
    (j) =>
      phase(j) === 'pending' &&
      (j.status?.attempts ?? 0) === 0 &&
      holding(byName.get(j.spec.account), j, fits) !== 'none',
  );
}

/** How far the jobs have got (started, finished): any change is progress. */
export function progressOf(jobs: GenerationJob[]): string {
  const started = jobs.filter((j) => phase(j) !== 'pending' || (j.status?.attempts ?? 0) > 0).length;
  const finished = jobs.filter((j) => isTerminal(phase(j))).length;
  return `${started} started, ${finished} finished`;
}
