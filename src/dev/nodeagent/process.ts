import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { constants } from 'node:os';

/** How a container's main process ended. */
export interface ContainerExit {
  exitCode: number;
  /** Set when the process could not be started at all (exit code 128, reason StartError). */
  startError?: string;
  finishedAt: Date;
}

/** A running container: its main process leads a process group that stands for the container. */
export interface ContainerProcess {
  readonly pid: number | undefined;
  readonly startedAt: Date;
  readonly exited: Promise<ContainerExit>;
  /** Signals every process of the container; harmless once they are gone. */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface LaunchOptions {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Receives stdout and stderr, appended. */
  logFile: string;
}

/**
 * Starts a container's command as a local process in its own process group, so that a
 * stop reaches the children a shell starts, as a container runtime kills the whole
 * container. The reaper (below) kills the group if this process dies first, so no Pod
 * process outlives the agent, even when the agent is killed with SIGKILL.
 */
export function startContainer(options: LaunchOptions): ContainerProcess {
  const [command, ...args] = options.argv;
  if (!command)
    return failedStart('the container has no command (the dev node agent runs no image entrypoint)');
  // The child writes straight into the log file, so its output is complete the moment it exits.
  const fd = openSync(options.logFile, 'a');
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } catch (err) {
    return failedStart(String(err));
  } finally {
    closeSync(fd);
  }
  const startedAt = new Date();
  const pid = child.pid;
  const signalGroup = (signal: 'SIGTERM' | 'SIGKILL') => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  const exited = new Promise<ContainerExit>((resolve) => {
    child.once('error', (err) => {
      if (pid === undefined) resolve({ exitCode: 128, startError: err.message, finishedAt: new Date() });
    });
    child.once('exit', (code, signal) => {
      // The container ends with its main process: whatever it left running goes too.
      signalGroup('SIGKILL');
      if (pid !== undefined) reaperTell(`- ${pid}`);
      resolve({ exitCode: code ?? 128 + (signal ? constants.signals[signal] : 0), finishedAt: new Date() });
    });
  });
  if (pid !== undefined) reaperTell(`+ ${pid}`);
  return { pid, startedAt, exited, signal: signalGroup };
}

function failedStart(message: string): ContainerProcess {
  const now = new Date();
  return {
    pid: undefined,
    startedAt: now,
    exited: Promise.resolve({ exitCode: 128, startError: message, finishedAt: now }),
    signal: () => {},
  };
}

/**
 * One reaper process for all containers of this process: it learns each container's
 * process group on its stdin ("+ pgid" when started, "- pgid" when gone) and, when stdin
 * closes because this process ended (even by SIGKILL, the kernel closes the pipe), stops
 * the groups it still knows: SIGTERM, then SIGKILL after 5 s. One for all, not one per
 * container: process spawns are most of the node agent's CPU under load, and this halves them.
 */
const REAPER_SCRIPT = `
declare -A groups
while read -r op pgid; do
  case "$op" in
    +) groups[$pgid]=1 ;;
    -) unset "groups[$pgid]" ;;
  esac
done
[ \${#groups[@]} -eq 0 ] && exit 0
for g in "\${!groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
sleep 5
for g in "\${!groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
exit 0
`;

let reaper: ChildProcess | undefined;

function reaperTell(line: string): void {
  if (!reaper || reaper.exitCode !== null || reaper.signalCode !== null) {
    // Its own process group: a Ctrl-C to this one's group must leave it to clean up.
    reaper = spawn('bash', ['-c', REAPER_SCRIPT, 'genjobs-reaper'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    reaper.on('error', () => {}); // no bash: containers just lose their safety net
    reaper.stdin?.on('error', () => {});
    // Neither the process nor the pipe keeps this one alive.
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }
  reaper.stdin?.write(`${line}\n`);
}

/** Kubelet's limits: the message file is read up to 4 KiB; the log fallback is 80 lines, 2 KiB. */
const MESSAGE_LIMIT = 4096;
const LOG_LINES = 80;
const LOG_BYTES = 2048;

/**
 * The container's termination message as kubelet reads it: the first 4 KiB of the message
 * file; with `FallbackToLogsOnError`, a failed container that left the file empty gets the
 * tail of its output instead.
 */
export async function terminationMessage(
  messageFile: string,
  logFile: string,
  policy: string | undefined,
  failed: boolean,
): Promise<string> {
  const message = await readHead(messageFile, MESSAGE_LIMIT);
  if (message !== '' || !failed || policy !== 'FallbackToLogsOnError') return message;
  return logTail(logFile);
}

async function readHead(path: string, limit: number): Promise<string> {
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(limit);
      const { bytesRead } = await handle.read(buffer, 0, limit, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}

async function logTail(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const tail = Buffer.from(lines.slice(-LOG_LINES).join('\n'));
  return tail.subarray(Math.max(0, tail.length - LOG_BYTES)).toString('utf8');
}
