/**
 * CPU time by process, from /proc/<pid>/stat before and after a measured burst, so a run
 * shows where the machine's cores went: the control plane, each service part and the
 * benchmark itself, which drives the load on the same cores.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { ControlPlane } from '../../src/dev/controlplane.ts';
import { round } from './stats.ts';

export type CpuProcess =
  | 'kube-apiserver'
  | 'etcd'
  | 'api'
  | 'controller'
  | 'kube-controller-manager'
  | 'node agent'
  | 'postgres'
  | 'forwarder'
  | 'bench';

export type Pids = Partial<Record<CpuProcess, number>>;

/** CPU seconds used so far, by process. */
export type CpuSnapshot = Partial<Record<CpuProcess, number>>;

export interface CpuUse {
  /** CPU seconds by process between the two snapshots. */
  seconds: Partial<Record<CpuProcess, number>>;
  /** CPU milliseconds per item, by process. */
  msPerItem: Partial<Record<CpuProcess, number>>;
  totalMsPerItem: number;
}

/** USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every Linux the benchmark runs on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds a process has used: user and system time, its own and that of the children
 * it has waited for (the node agent's container processes). NaN when it is gone.
 */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the command name, which is in parentheses and may hold spaces: the first
  // is the state (field 3 of proc(5)), so utime, stime, cutime, cstime (14 to 17) are 11 to 14.
  const ticks = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
  return ticks.length === 4 ? ticks.reduce((a, b) => a + b, 0) / TICKS_PER_SECOND : Number.NaN;
}

/** The processes every burst runs beside: etcd, kube-apiserver and this one. */
export function basePids(cp: ControlPlane): Pids {
  return { 'kube-apiserver': cp.pids.apiServer, etcd: cp.pids.etcd, bench: process.pid };
}

/**
 * CPU seconds by process. Names in `trees` count the process and every live descendant:
 * PostgreSQL serves each connection from its own backend process, whose time reaches the
 * postmaster's waited-for children only when the backend exits.
 */
export async function cpuSnapshot(pids: Pids, trees: readonly CpuProcess[] = []): Promise<CpuSnapshot> {
  const snapshot: CpuSnapshot = {};
  for (const [name, pid] of Object.entries(pids) as Array<[CpuProcess, number | undefined]>) {
    if (pid === undefined) snapshot[name] = Number.NaN;
    else if (!trees.includes(name)) snapshot[name] = await cpuSeconds(pid);
    else {
      let sum = 0;
      for (const p of await descendants(pid)) sum += (await cpuSeconds(p)) || 0;
      snapshot[name] = sum;
    }
  }
  return snapshot;
}

/** `pid` and every process below it, from the parent ids in /proc. */
async function descendants(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** The CPU of several pieces of work (rounds of one measurement), per item of them all. */
export function sumCpu(parts: readonly CpuUse[], items: number): CpuUse {
  const seconds: CpuSnapshot = {};
  for (const p of parts) {
    for (const [name, s] of Object.entries(p.seconds) as Array<[CpuProcess, number]>) {
      seconds[name] = (seconds[name] ?? 0) + s;
    }
  }
  const zero = Object.fromEntries(Object.keys(seconds).map((k) => [k, 0])) as CpuSnapshot;
  return cpuUse(zero, seconds, items);
}

export function cpuUse(before: CpuSnapshot, after: CpuSnapshot, items: number): CpuUse {
  const use: CpuUse = { seconds: {}, msPerItem: {}, totalMsPerItem: 0 };
  for (const [name, seconds] of Object.entries(after) as Array<[CpuProcess, number]>) {
    const delta = seconds - (before[name] ?? Number.NaN);
    use.seconds[name] = round(delta, 2);
    use.msPerItem[name] = round((delta * 1000) / items, 3);
    use.totalMsPerItem += (delta * 1000) / items;
  }
  use.totalMsPerItem = round(use.totalMsPerItem, 3);
  return use;
}
