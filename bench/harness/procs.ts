import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildMemory, ChildMessage } from './protocol.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/**
 * Everything the run must stop before it exits, newest first: service processes, the
 * kube-controller-manager, the control plane. Stopped on success, on error and on Ctrl-C.
 */
const cleanups = new Map<number, { what: string; fn: () => Promise<void> }>();
let nextCleanup = 0;

/** Registers a stop function; the returned function unregisters it (after a normal stop). */
export function onCleanup(what: string, fn: () => Promise<void>): () => void {
  const id = nextCleanup++;
  cleanups.set(id, { what, fn });
  return () => cleanups.delete(id);
}

export async function cleanupAll(): Promise<void> {
  const all = [...cleanups.entries()].reverse();
  cleanups.clear();
  for (const [, c] of all) {
    await c.fn().catch((err) => console.error(`cleanup of ${c.what} failed: ${String(err)}`));
  }
}

/** Ctrl-C and kill stop every process the run started, then exit non-zero. */
export function installSignalHandlers(): void {
  let interrupted = false;
  const handler = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: stopping every process the benchmark started...`);
    void cleanupAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** A service part (api, controller or node agent) running in its own Node process. */
export interface ServiceProcess {
  readonly role: string;
  readonly pid: number;
  /** The api's base URL or the controller's /metrics server; empty for the agent. */
  readonly url: string;
  readonly logFile: string;
  /** Heap after two full collections, from the child itself; RSS from /proc. */
  memory(): Promise<ChildMemory & { vmRss: number }>;
  stop(): Promise<void>;
}

/**
 * Starts `bench/harness/child.ts <role>` with --expose-gc, an IPC channel and its output in
 * `logFile`, and resolves once the part is serving (caches synced).
 */
export async function startService(
  role: 'api' | 'controller' | 'agent' | 'forwarder',
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs = 120_000,
): Promise<ServiceProcess> {
  const fd = openSync(logFile, 'a');
  // BENCH_PROFILE=api,controller,agent: a V8 CPU profile of those parts, next to their logs.
  const profile = (process.env.BENCH_PROFILE ?? '').split(',').includes(role)
    ? ['--cpu-prof', `--cpu-prof-dir=${dirname(logFile)}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`]
    : [];
  let child: ChildProcess;
  try {
    child = fork(CHILD, [role], {
      // BENCH_NODE_FLAGS: V8 or Node flags for the service parts (--trace-gc, heap sizes), for experiments.
      execArgv: [
        '--expose-gc',
        ...profile,
        ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
      ],
      env: { ...process.env, ...env },
      stdio: ['ignore', fd, fd, 'ipc'],
    });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const waiters = new Map<number, (m: ChildMemory) => void>();
  child.on('message', (msg: ChildMessage) => {
    if (msg.type === 'memory') waiters.get(msg.id)?.(msg.memory);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${role} not ready after ${timeoutMs} ms; see ${logFile}`)),
      timeoutMs,
    );
    child.on('message', (msg: ChildMessage) => {
      if (msg.type === 'ready') {
        clearTimeout(timer);
        resolve(msg.url);
      } else if (msg.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${role} failed to start: ${msg.error.split('\n')[0]}; see ${logFile}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited (${code}) before it was ready; see ${logFile}`));
    });
  }).catch(async (err) => {
    child.kill('SIGKILL');
    throw err;
  });

  let memoryId = 0;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send({ type: 'stop' });
    else child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  const unregister = onCleanup(`${role} (pid ${child.pid})`, stop);
  return {
    role,
    pid: child.pid ?? 0,
    url,
    logFile,
    async memory() {
      const id = ++memoryId;
      const m = await new Promise<ChildMemory>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${role} did not answer a memory request`)), 30_000);
        waiters.set(id, (value) => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve(value);
        });
        child.send({ type: 'memory', id });
      });
      return { ...m, vmRss: await vmRss(child.pid ?? 0) };
    },
    async stop() {
      await stop();
      unregister();
    },
  };
}

/** Resident set size of a process, in bytes, from /proc/<pid>/status. */
export async function vmRss(pid: number): Promise<number> {
  const text = await readFile(join('/proc', String(pid), 'status'), 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(text)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}
