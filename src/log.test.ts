import { describe, expect, it } from 'vitest';
import { ArchiveUnavailableError } from './archive/store.ts';
import { serializeError } from './log.ts';

const messageOf = (err: unknown) => (serializeError(err) as { message: string }).message;

describe('serializeError', () => {
  it('says a cause its wrapper already quotes once, and one it does not after it', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    expect(messageOf(new ArchiveUnavailableError(refused))).toBe(
      'the job archive is unavailable: connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(messageOf(new Error('upsert failed', { cause: refused }))).toBe(
      'upsert failed: connect ECONNREFUSED 127.0.0.1:5432',
    );
  });

  it('keeps what a chain adds below a quoted cause, and stops at a cycle', () => {
    const root = new Error('socket hang up');
    const middle = new Error('request failed', { cause: root });
    expect(messageOf(new Error('the store: request failed', { cause: middle }))).toBe(
      'the store: request failed: socket hang up',
    );
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(messageOf(b)).toBe('b: a');
  });

  it('leaves the rest of pino’s serialization alone', () => {
    const out = serializeError(new ArchiveUnavailableError(new Error('down'))) as Record<string, unknown>;
    expect(out.type).toBe('ArchiveUnavailableError');
    expect(String(out.stack)).toContain('caused by: Error: down');
    expect(serializeError('not an error')).toBe('not an error');
  });
});

describe('createLogger', () => {
  it('loses lines, not the process, when stdout cannot be written (a full disk: /dev/full), and says so once', async () => {
    const { spawn } = await import('node:child_process');
    const { openSync, closeSync } = await import('node:fs');
    const full = openSync('/dev/full', 'w');
    try {
      const script = `import { createLogger } from ${JSON.stringify(new URL('./log.ts', import.meta.url).pathname)};
        const log = createLogger('worker');
        for (let i = 0; i < 2000; i++) log.info({ i }, 'a line');
        setTimeout(() => { log.info('still here'); process.exitCode = 7; }, 200);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', full, 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (c) => {
        stderr += String(c);
      });
      const code = await new Promise((r) => child.on('exit', r));
      expect(stderr).toBe(
        'genjobs worker: its log lines cannot be written (ENOSPC: no space left on device, write); they are dropped until they can\n',
      );
      expect(code).toBe(7);
    } finally {
      closeSync(full);
    }
  });

  it('writes a lone line within a moment though it fills no buffer, and every line before an exit', async () => {
    const { spawn } = await import('node:child_process');
    const logTs = JSON.stringify(new URL('./log.ts', import.meta.url).pathname);
    // One line, then a process that keeps running: only the periodic flush writes it.
    const idle = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createLogger } from ${logTs};
        createLogger('api').info('listening'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const first = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no line within 5 s')), 5_000);
        idle.stdout?.once('data', (c) => {
          clearTimeout(timer);
          resolve(String(c));
        });
      });
      expect(JSON.parse(first)).toMatchObject({ component: 'api', msg: 'listening' });
    } finally {
      idle.kill();
    }
    // Lines still gathered when the process exits go out with it.
    const exiting = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createLogger } from ${logTs};
        const log = createLogger('worker'); for (let i = 0; i < 50; i++) log.info({ i }, 'a line'); process.exit(3);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    exiting.stdout?.on('data', (c) => {
      out += String(c);
    });
    const code = await new Promise((r) => exiting.on('close', r));
    expect(code).toBe(3);
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { i: number }).i),
    ).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
