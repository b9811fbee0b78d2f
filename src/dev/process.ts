import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface Supervised {
  readonly child: ChildProcess;
  readonly name: string;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after the grace period; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a long-running helper process (etcd, kube-apiserver, a service part) whose output
 * goes to a log file, together with a detached watchdog that kills it when this process
 * disappears, even by SIGKILL, so an interrupted test run leaves nothing behind.
 */
export function startSupervised(
  name: string,
  command: string,
  args: string[],
  options: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string },
): Supervised {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = once(child, 'exit').then(([code, signal]) => {
    log.end();
    return (code ?? signal) as number | string;
  });
  exited.catch(() => {});
  if (child.pid !== undefined) {
    const watchdog = spawn(
      'bash',
      [
        '-c',
        'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; ' +
          'kill -TERM "$2" 2>/dev/null; sleep 5; kill -KILL "$2" 2>/dev/null; exit 0',
        'watchdog',
        String(process.pid),
        String(child.pid),
      ],
      { detached: true, stdio: 'ignore' },
    );
    watchdog.unref();
  }
  return {
    child,
    name,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
