import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../dev/controlplane.ts';
import { type Supervised, startSupervised } from '../dev/process.ts';

const run = promisify(execFile);

/** The directory of PostgreSQL's server binaries: $GENJOBS_PG_BIN, else Debian's newest. */
export function postgresBinDir(): string {
  if (process.env.GENJOBS_PG_BIN) return process.env.GENJOBS_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error('PostgreSQL is not installed: run `npm run setup` (Debian package postgresql)');
  return join(root, versions[0], 'bin');
}

/**
 * A throwaway PostgreSQL server for tests and the bench, as etcd is started for them: its
 * own data directory in a temp dir, its own loopback port, fsync off. PostgreSQL refuses to
 * run as root, so as root it runs as the `postgres` user the Debian package creates.
 */
export class LocalPostgres {
  private proc: Supervised | undefined;
  readonly dir: string;
  readonly port: number;
  private readonly bin: string;

  /** Whether it serves TLS (server.crt and server.key in its directory). */
  private tls = false;

  private constructor(dir: string, port: number, bin: string) {
    this.dir = dir;
    this.port = port;
    this.bin = bin;
  }

  /** The postmaster's process id while it runs (each connection is a child process of it). */
  get pid(): number | undefined {
    return this.proc?.child.pid;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** With `tls`, the server also accepts TLS with that certificate (PEM) and its key. */
  static async start(o: { tls?: { cert: string; key: string } } = {}): Promise<LocalPostgres> {
    const dir = await mkdtemp(join(tmpdir(), 'genjobs-pg-'));
    const server = new LocalPostgres(dir, await freePort(), postgresBinDir());
    await mkdir(join(dir, 'data'));
    const files = [dir, join(dir, 'data')];
    if (o.tls) {
      // PostgreSQL refuses a key file that others may read.
      await writeFile(join(dir, 'server.crt'), o.tls.cert, { mode: 0o600 });
      await writeFile(join(dir, 'server.key'), o.tls.key, { mode: 0o600 });
      files.push(join(dir, 'server.crt'), join(dir, 'server.key'));
      server.tls = true;
    }
    if (userInfo().uid === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      for (const f of files) await chown(f, Number(stdout.trim()), Number(gid.trim()));
    }
    await run(
      ...server.as(join(server.bin, 'initdb'), [
        '-D',
        join(dir, 'data'),
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ]),
    );
    await server.resume();
    return server;
  }

  /** Starts the server (again, after {@link pause}) and waits until it accepts connections. */
  async resume(): Promise<void> {
    if (this.proc) return;
    const [cmd, args] = this.as(join(this.bin, 'postgres'), [
      '-D',
      join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      ...(this.tls ? ['-c', 'ssl=on', '-c', `ssl_cert_file=${join(this.dir, 'server.crt')}`] : []),
      ...(this.tls ? ['-c', `ssl_key_file=${join(this.dir, 'server.key')}`] : []),
    ]);
    this.proc = startSupervised('postgres', cmd, args, { logFile: join(this.dir, 'postgres.log') });
    for (let i = 0; ; i++) {
      try {
        await run(join(this.bin, 'pg_isready'), [
          '-h',
          '127.0.0.1',
          '-p',
          String(this.port),
          '-U',
          'postgres',
        ]);
        return;
      } catch (err) {
        if (i > 200) throw new Error(`postgres did not start (see ${this.dir}/postgres.log): ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Stops the server the fast way (open connections are cut); the data stays for {@link resume}. */
  async pause(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (!proc) return;
    proc.child.kill('SIGINT');
    await proc.exited;
  }

  async stop(): Promise<void> {
    await this.pause();
    if (!process.env.GENJOBS_KEEP_TEST_DIR) await rm(this.dir, { recursive: true, force: true });
  }

  /** A command line run as the postgres user when this process is root. */
  private as(cmd: string, args: string[]): [string, string[]] {
    if (userInfo().uid !== 0) return [cmd, args];
    return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]];
  }
}
