import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';

/**
 * Takes `<dir>/dev.pid` for this process: one dev instance per dev dir. A second one's etcd
 * would wait on the first's data lock for ever, and its start would cut the first's logs.
 * A file left by a process that is gone is taken over (`onTakeOver` hears of it). Resolves
 * with the release.
 */
export async function lockDevDir(
  dir: string,
  onTakeOver?: (pid: number) => void,
): Promise<() => Promise<void>> {
  const file = join(dir, 'dev.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return async () => {
        const holder = await readFile(file, 'utf8').catch(() => '');
        if (Number(holder.trim()) === process.pid) await rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && (await devRunning(pid)))
        throw new ConfigError(
          `another genjobs dev (pid ${pid}) runs with GENJOBS_DEV_DIR=${dir}: stop it, or give this one its own GENJOBS_DEV_DIR and PORT`,
        );
      await rm(file, { force: true });
      if (Number.isInteger(pid) && pid > 0) onTakeOver?.(pid);
    }
  }
  throw new ConfigError(
    `cannot take ${file}: another genjobs dev keeps starting with GENJOBS_DEV_DIR=${dir}`,
  );
}

/**
 * Whether `pid` is a genjobs dev process: alive, and (where /proc tells) running `dev`, not
 * another program that got the number after a crash or a reboot.
 */
async function devRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it is there, another user's.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (cmdline === undefined) return true;
  const args = cmdline.split('\0');
  return args.includes('dev') && args.some((a) => /(?:^|\/)(?:cli\.ts|genjobs)$/.test(a));
}

/**
 * Refuses a port something already listens on, before a control plane is started for
 * nothing and the api dies on it with a stack trace.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ConfigError(
        `port ${port} on ${host} is in use (another genjobs dev, or another program): PORT=<another port> npm run dev`,
      );
    throw err;
  } finally {
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  }
}
