import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';

/** The machine a run was made on, so two runs can be compared (or not). */
export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  /** Load average when the run started: other work on a shared machine skews absolute numbers. */
  loadAverageAtStart: number[];
  kubernetes?: string;
  controlPlaneAssets?: string;
  /** The code measured: its commit, and whether src/ had uncommitted changes. */
  source: { commit: string; uncommittedChanges: boolean | null };
}

async function source(): Promise<Machine['source']> {
  const git = (...args: string[]) =>
    promisify(execFile)('git', ['-C', REPO_ROOT, ...args]).then((r) => r.stdout.trim());
  try {
    return {
      commit: await git('rev-parse', 'HEAD'),
      uncommittedChanges: (await git('status', '--porcelain', 'src')) !== '',
    };
  } catch {
    // An exported tree (git archive) carries the commit in .commit.
    const commit = await readFile(join(REPO_ROOT, '.commit'), 'utf8').catch(() => 'unknown');
    return { commit: commit.trim(), uncommittedChanges: null };
  }
}

export async function machine(): Promise<Machine> {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
    source: await source(),
  };
}
