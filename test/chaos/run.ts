/**
 * `npm run chaos [-- --short] [-- --seed=N] [-- --keep]`: the crash suite. The whole
 * service runs as separate processes on a control plane of its own (a dir under /tmp,
 * ports from 18200), with the job archive on a PostgreSQL server of its own (as genjobs
 * runs by default; finished jobs leave etcd 10 s after they end), under a steady load of
 * submits, cancels, uploads and webhook jobs, while the suite SIGKILLs its parts at random
 * moments, in turn (api, controller, node agent, kube-apiserver, etcd, then all at once),
 * each brought back by its supervisor, stops PostgreSQL for 20 s, and freezes
 * kube-apiserver for 30 s. Then it checks, over live and archived jobs alike, that every job
 * finished, every ledger is whole to the micro-cent, every cancel answered 200 held, no
 * attempt ran twice, every webhook came with one stable id, and every finished job was
 * archived and its resource deleted; throughout, that the controller never sat idle while
 * paid jobs waited (a stall keeps its /debug/state). Prints a table; exits 1 on any violation.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Account, type GenerationJob, isTerminal } from '../../src/k8s/types.ts';
import { makeTestTls, startReceiver } from '../webhooks/receiver.ts';
import {
  archivedAndGone,
  attemptsRanOnce,
  type CheckResult,
  cancelsHeld,
  everyJobTerminal,
  ledgerOf,
  ledgersWhole,
  webhooksDelivered,
} from './checks.ts';
import { Load, sleep } from './load.ts';
import { ACCOUNTS, type ChaosStack, KEEP_FINISHED_MS, PARTS, type Part, startChaosStack } from './stack.ts';
import { StallWatch } from './stall.ts';

const args = process.argv.slice(2);
const short = args.includes('--short');
const keep = args.includes('--keep');
const seed = Number(args.find((a) => a.startsWith('--seed='))?.slice(7) ?? Date.now() % 1_000_000);
if (args.some((a) => a !== '--short' && a !== '--keep' && !a.startsWith('--seed=')) || Number.isNaN(seed)) {
  console.error('usage: node test/chaos/run.ts [--short] [--keep] [--seed=N]');
  process.exit(2);
}

/** A small seeded generator (mulberry32), so a failing run can be replayed with its seed. */
function seeded(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(seed);

type Round = Part | 'all' | 'freeze' | 'postgres';
const FREEZE_MS = 30_000;
/** How long PostgreSQL (the job archive) is down in its round. */
const ARCHIVE_OUTAGE_MS = 20_000;
/** How long after keepFinished a finished job may still be a resource once the load stopped. */
const ARCHIVE_BOUND_MS = 120_000;
/** How long a killed part may take to be back and ready. */
const RECOVERY_BOUND_MS = 180_000;
/** How long the service may take, once the load stops, to finish every job and settle. */
const DRAIN_BOUND_MS = 240_000;
/**
 * How long paid jobs may wait with nothing started or finished, the controller ready, before
 * the run calls it a stall: far above a job's run time (seconds) and a lost Pod's retry.
 */
const STALL_MS = 60_000;

function schedule(): Round[] {
  if (short) return [...PARTS, 'all', 'postgres', 'freeze'];
  const kills: Round[] = [...PARTS, ...PARTS, ...PARTS, 'all', 'all', 'postgres', 'postgres'];
  for (let i = kills.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kills[i], kills[j]] = [kills[j]!, kills[i]!];
  }
  return [...kills, 'freeze'];
}

const started = Date.now();
const elapsed = () => ((Date.now() - started) / 1000).toFixed(0).padStart(4);
const progress = (m: string) => console.error(`[${elapsed()} s] ${m}`);

interface RoundResult {
  round: Round;
  atSeconds: number;
  backSeconds?: number;
  note: string;
}

async function status(url: string): Promise<number> {
  return fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
    (r) => r.status,
    () => 0,
  );
}

async function ready(stack: ChaosStack): Promise<boolean> {
  return (
    (await status(`${stack.apiUrl}/readyz`)) === 200 &&
    (await status(`${stack.controllerUrl}/readyz`)) === 200
  );
}

async function waitFor(check: () => Promise<boolean>, boundMs: number): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await sleep(500);
  }
  return false;
}

function kill(stack: ChaosStack, part: Part): number | undefined {
  const pid = stack.pid(part);
  if (pid !== undefined) process.kill(pid, 'SIGKILL');
  return pid;
}

async function killRound(stack: ChaosStack, round: Part | 'all'): Promise<RoundResult> {
  const parts = round === 'all' ? [...PARTS] : [round];
  const atSeconds = (Date.now() - started) / 1000;
  const killed = parts.map((p) => [p, kill(stack, p)] as const);
  const t0 = Date.now();
  // Back: every killed part runs again under a new process id and the service is ready.
  const back = await waitFor(async () => {
    for (const [p, pid] of killed) {
      const now = stack.pid(p);
      if (now === undefined || now === pid) return false;
    }
    return ready(stack);
  }, RECOVERY_BOUND_MS);
  return {
    round,
    atSeconds,
    backSeconds: back ? (Date.now() - t0) / 1000 : undefined,
    note: killed.map(([p, pid]) => `${p}:${pid ?? '-'}`).join(' '),
  };
}

async function freezeRound(stack: ChaosStack): Promise<RoundResult> {
  const pid = stack.pid('kube-apiserver');
  const atSeconds = (Date.now() - started) / 1000;
  if (pid === undefined) return { round: 'freeze', atSeconds, note: 'no kube-apiserver' };
  process.kill(pid, 'SIGSTOP');
  let notReadySeen = false;
  const until = Date.now() + FREEZE_MS;
  try {
    while (Date.now() < until) {
      if ((await status(`${stack.apiUrl}/readyz`)) === 503) notReadySeen = true;
      await sleep(1_000);
    }
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const t0 = Date.now();
  const back = await waitFor(() => ready(stack), RECOVERY_BOUND_MS);
  return {
    round: 'freeze',
    atSeconds,
    backSeconds: back ? (Date.now() - t0) / 1000 : undefined,
    note: `SIGSTOP ${FREEZE_MS / 1000} s; api /readyz ${notReadySeen ? 'went 503' : 'NEVER went 503'}`,
  };
}

/**
 * PostgreSQL stopped (open connections cut) while the load goes on, then started again: jobs
 * keep running and finishing, archiving waits, and catches up.
 */
async function archiveOutageRound(stack: ChaosStack): Promise<RoundResult> {
  const atSeconds = (Date.now() - started) / 1000;
  await stack.postgres.pause();
  await sleep(ARCHIVE_OUTAGE_MS);
  // Jobs and live reads do not need the archive: the api stays ready while it is away.
  const apiReady = (await status(`${stack.apiUrl}/readyz`)) === 200;
  await stack.postgres.resume();
  const t0 = Date.now();
  const back = await waitFor(() => ready(stack), RECOVERY_BOUND_MS);
  return {
    round: 'postgres',
    atSeconds,
    backSeconds: back ? (Date.now() - t0) / 1000 : undefined,
    note: `stopped ${ARCHIVE_OUTAGE_MS / 1000} s; api /readyz ${apiReady ? 'stayed 200' : 'went 503: NEVER expected'}`,
  };
}

/** Every job, live (the apiserver) or archived (PostgreSQL): a live resource wins over its record. */
async function snapshot(
  stack: ChaosStack,
): Promise<{ jobs: GenerationJob[]; accounts: Account[]; live: GenerationJob[] }> {
  const live = await stack.r.jobs.listAll();
  const accounts = await stack.r.accounts.listAll();
  const jobs = new Map(live.map((j) => [j.metadata.name ?? '', j]));
  for (const account of ACCOUNTS) {
    let before: readonly [string, string] | undefined;
    for (;;) {
      const page = await stack.archive.listJobs({ account, limit: 500, ...(before ? { before } : {}) });
      for (const j of page) if (!jobs.has(j.metadata.name ?? '')) jobs.set(j.metadata.name ?? '', j);
      if (page.length < 500) break;
      const last = page.at(-1)!;
      before = [last.metadata.creationTimestamp ?? '', last.metadata.name ?? ''];
    }
  }
  return { jobs: [...jobs.values()], accounts, live };
}

function printTables(rounds: RoundResult[], checks: CheckResult[], stack: ChaosStack, load: Load): void {
  const o = load.observed;
  console.log(`\ncrash suite (${short ? 'short' : 'full'}, seed ${seed}) in ${elapsed().trim()} s`);
  console.log('\n  round             at (s)   back after (s)   processes');
  for (const r of rounds)
    console.log(
      `  ${r.round.padEnd(16)}  ${r.atSeconds.toFixed(0).padStart(6)}   ${(r.backSeconds?.toFixed(1) ?? 'NOT BACK').padStart(14)}   ${r.note}`,
    );
  console.log(`\n  restarts by supervisor: ${PARTS.map((p) => `${p} ${stack.restarts()[p]}`).join(', ')}`);
  console.log(
    `  load: ${o.submitted.size} jobs answered 200, ${o.cancelled.size} cancels answered 200, ${o.unanswered} submits unanswered after retries`,
  );
  console.log(
    `  answers: ${[...o.outcomes]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ')}`,
  );
  console.log('\n  invariant                                                checked   violations');
  for (const c of checks)
    console.log(`  ${c.name.padEnd(55)}  ${String(c.checked).padStart(7)}   ${c.violations.length}`);
  for (const c of checks) for (const v of c.violations.slice(0, 20)) console.log(`    ✗ ${c.name}: ${v}`);
}

async function main(): Promise<number> {
  const dir = await mkdtemp('/tmp/genjobs-chaos-');
  progress(`seed ${seed}; state in ${dir}`);
  const tls = await makeTestTls();
  const caFile = join(dir, 'webhook-ca.crt');
  await writeFile(caFile, tls.ca);
  const receiver = await startReceiver(tls);
  let stack: ChaosStack | undefined;
  let stalls: StallWatch | undefined;
  let failed = true;
  try {
    stack = await startChaosStack(dir, caFile);
    const s = stack;
    if (!(await waitFor(() => ready(s), 300_000))) throw new Error('the service did not become ready');
    progress('service ready; load starts');
    const load = new Load({
      apiUrl: s.apiUrl,
      keys: s.keys,
      webhookUrl: receiver.url,
      concurrency: short ? 4 : 6,
      pauseMs: 400,
      random,
    });
    await load.start();
    stalls = new StallWatch({
      snapshot: () => snapshot(s),
      controllerReady: async () => (await status(`${s.controllerUrl}/readyz`)) === 200,
      controllerState: async () =>
        (await fetch(`${s.controllerUrl}/debug/state`, { signal: AbortSignal.timeout(5_000) })).text(),
      dir: join(dir, 'logs'),
      stallMs: STALL_MS,
      intervalMs: 5_000,
      elapsed,
      progress,
    });
    stalls.start();
    const rounds: RoundResult[] = [];
    for (const round of schedule()) {
      await sleep(3_000 + random() * 5_000);
      progress(`round ${rounds.length + 1}: ${round}`);
      rounds.push(
        round === 'freeze'
          ? await freezeRound(s)
          : round === 'postgres'
            ? await archiveOutageRound(s)
            : await killRound(s, round),
      );
      const last = rounds.at(-1)!;
      progress(`  back after ${last.backSeconds?.toFixed(1) ?? 'NEVER'} s (${last.note})`);
    }
    await sleep(5_000);
    progress('load stops; waiting for every job to finish and settle');
    await load.stop();
    await waitFor(async () => {
      const { jobs, accounts } = await snapshot(s);
      return (
        everyJobTerminal(jobs, load.observed).violations.length === 0 &&
        accounts.every((a) => ledgerOf(a).held === 0) &&
        webhooksDelivered(jobs, receiver.received).violations.length === 0
      );
    }, DRAIN_BOUND_MS);
    // Every finished job archived and its resource deleted after keepFinished.
    await waitFor(async () => {
      const { live } = await snapshot(s);
      return live.every((j) => !isTerminal(j.status?.phase));
    }, KEEP_FINISHED_MS + ARCHIVE_BOUND_MS);
    const stalled = await stalls.stop();
    const { jobs, accounts, live } = await snapshot(s);
    const archived = new Set<string>();
    for (const j of jobs)
      if (await s.archive.getJob(j.metadata.name ?? '')) archived.add(j.metadata.name ?? '');
    const checks = [
      {
        name: 'every killed part came back and the service was ready',
        checked: rounds.length,
        violations: rounds
          .filter((r) => r.backSeconds === undefined || r.note.includes('NEVER'))
          .map((r) => `${r.round} at ${r.atSeconds.toFixed(0)} s: ${r.note}`),
      },
      everyJobTerminal(jobs, load.observed),
      stalled,
      ledgersWhole(accounts, jobs),
      cancelsHeld(jobs, load.observed),
      await attemptsRanOnce(s.agentLog),
      webhooksDelivered(jobs, receiver.received),
      archivedAndGone(jobs, live, archived),
      {
        name: 'the load got jobs through',
        checked: 1,
        violations: load.observed.submitted.size === 0 ? ['no submit was answered 200'] : [],
      },
    ];
    printTables(rounds, checks, s, load);
    failed = checks.some((c) => c.violations.length > 0);
    return failed ? 1 : 0;
  } finally {
    // Stopped twice is harmless; its loop must not outlive a run cut short by an error.
    await stalls?.stop();
    await stack?.stop().catch((err) => progress(`stop failed: ${err}`));
    await receiver.close();
    if (failed || keep) progress(`logs and state kept in ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main().catch((err) => {
  console.error(err);
  return 1;
});
