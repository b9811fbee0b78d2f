import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Account, GenerationJob } from '../../src/k8s/types.ts';
import { type CheckResult, paidPending, progressOf } from './checks.ts';
import { sleep } from './load.ts';

export interface StallWatchOptions {
  /** The jobs and accounts as the apiserver has them now (throws while it cannot answer). */
  snapshot: () => Promise<{ jobs: GenerationJob[]; accounts: Account[] }>;
  /** Whether the controller answers /readyz 200 (a controller down is the kill rounds' business). */
  controllerReady: () => Promise<boolean>;
  /** The controller's /debug/state, kept as evidence when it stalls. */
  controllerState: () => Promise<string>;
  /** Where the evidence goes (the run's log directory). */
  dir: string;
  /** How long paid jobs may wait with nothing started or finished before it counts as a stall. */
  stallMs: number;
  intervalMs: number;
  /** Seconds since the run started, for the evidence's file names. */
  elapsed: () => string;
  progress: (message: string) => void;
}

/**
 * Watches, through the whole run, for a controller that sits idle with work to do: jobs
 * whose money is held wait pending, the controller says it is ready, the apiserver answers,
 * and yet no job starts or finishes for `stallMs`. Each such stall saves the controller's
 * /debug/state (what its queues, caches and admission hold) and is a violation.
 */
export class StallWatch {
  private readonly o: StallWatchOptions;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly stalls: string[] = [];
  private checked = 0;

  constructor(options: StallWatchOptions) {
    this.o = options;
  }

  start(): void {
    this.running = true;
    this.loop = this.watch();
  }

  async stop(): Promise<CheckResult> {
    this.running = false;
    await this.loop;
    return {
      name: 'the controller never sat idle while paid jobs waited',
      checked: this.checked,
      violations: this.stalls,
    };
  }

  private async watch(): Promise<void> {
    let last = '';
    let since = Date.now();
    // One report per stall: armed again once something moves.
    let reported = false;
    while (this.running) {
      await sleep(this.o.intervalMs);
      const seen = await this.look();
      const now = Date.now();
      // Nothing to judge (the apiserver or the controller is away, or no paid job waits):
      // the clock starts again from here.
      if (!seen || seen.waiting === 0 || seen.progress !== last) {
        last = seen?.progress ?? '';
        since = now;
        reported = false;
        continue;
      }
      this.checked++;
      if (reported || now - since < this.o.stallMs) continue;
      reported = true;
      const file = join(this.o.dir, `controller-state-${this.o.elapsed().trim()}s.json`);
      const state = await this.o.controllerState().catch((err) => `unavailable: ${err}`);
      await writeFile(file, state);
      const message = `${seen.waiting} paid jobs pending and ${seen.progress} unchanged for ${Math.round((now - since) / 1000)} s with the controller ready; its state is in ${file}`;
      this.o.progress(`STALL: ${message}`);
      this.stalls.push(message);
    }
  }

  private async look(): Promise<{ waiting: number; progress: string } | undefined> {
    try {
      if (!(await this.o.controllerReady())) return undefined;
      const { jobs, accounts } = await this.o.snapshot();
      return { waiting: paidPending(jobs, accounts).length, progress: progressOf(jobs) };
    } catch {
      return undefined;
    }
  }
}
