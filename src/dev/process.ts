import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { Writable } from 'node:stream';

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
  const log = logSink(name, options.logFile);
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group)
    // reaches the process that started it alone, which stops its parts in order (the
    // service before etcd and kube-apiserver); the watchdog covers its sudden death.
    detached: true,
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

/** After a write failed, how long a log file is left alone before it is opened again. */
const LOG_RETRY_MS = 10_000;
/** Output held for a log file that is slow to take it (a frozen disk) before lines are dropped. */
const LOG_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * A helper process's log file that loses lines, not the process, when it cannot be written
 * (a full disk, a file system gone read-only or frozen): a write stream's error would
 * otherwise be an unhandled 'error' event that ends dev mode, and a stalled one would stop
 * draining the child's output until its writes block. Said once on stderr when lines start
 * being dropped and once when the file takes them again (tried every LOG_RETRY_MS).
 */
export function logSink(name: string, file: string, retryMs = LOG_RETRY_MS): Writable {
  let out: WriteStream | undefined;
  let failedAt = 0;
  let dropped = 0;
  let failing = false;
  const open = () => {
    const stream = createWriteStream(file, { flags: 'a' });
    stream.on('error', (err) => {
      stream.destroy();
      if (out !== stream) return;
      out = undefined;
      failedAt = Date.now();
      if (failing) return;
      failing = true;
      process.stderr.write(
        `genjobs: ${name}'s log ${file} cannot be written (${err.message}); its lines are dropped until it can\n`,
      );
    });
    return stream;
  };
  // Each write's outcome: a line the stream held when it failed is lost with it.
  const written = (bytes: number) => (err?: Error | null) => {
    if (err) dropped += bytes;
    if (err || !failing) return;
    failing = false;
    process.stderr.write(`genjobs: ${name}'s log ${file} is written again\n`);
  };
  out = open();
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!out && Date.now() - failedAt >= retryMs) {
        out = open();
        if (dropped > 0)
          out.write(`[genjobs: ${dropped} bytes of this log were dropped: it could not be written]\n`);
        dropped = 0;
      }
      if (out && out.writableLength < LOG_BUFFER_BYTES) out.write(chunk, written(chunk.length));
      else dropped += chunk.length;
      done();
    },
    final(done) {
      if (!out) return done();
      out.end(() => done());
    },
  });
}

/** A process brought back whenever it exits, until stopped. */
export interface KeptAlive {
  readonly name: string;
  /** The process id of the current incarnation (undefined between one and the next). */
  pid(): number | undefined;
  /** How many times it was started again after exiting. */
  readonly restarts: number;
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs a part of the service (the api, the controller, a node agent) the way a kubelet runs
 * a container with restartPolicy Always: when it exits for any reason it is started again
 * after `restartDelayMs`, its output appended to the same log file.
 */
export function keepAlive(
  name: string,
  command: string,
  args: string[],
  options: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string; restartDelayMs?: number },
): KeptAlive {
  let current: Supervised | undefined;
  let stopped = false;
  let restarts = 0;
  const run = () => {
    const proc = startSupervised(name, command, args, options);
    current = proc;
    void proc.exited.then(async () => {
      if (current === proc) current = undefined;
      await new Promise((r) => setTimeout(r, options.restartDelayMs ?? 500));
      if (stopped) return;
      restarts++;
      run();
    });
  };
  run();
  return {
    name,
    pid: () => current?.child.pid,
    get restarts() {
      return restarts;
    },
    async stop(graceMs) {
      stopped = true;
      await current?.stop(graceMs);
    },
  };
}

/**
 * Makes `dir` (and its parents) and keeps it its owner's alone (0700): dev mode's folders
 * hold the api key, the control plane's admin token, etcd's data and the job history
 * (PGlite writes its files 0666), none of which another user of the machine may read.
 */
export async function ownDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o700);
}
