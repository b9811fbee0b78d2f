import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logSink, startSupervised } from './process.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const said = () => {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
};

describe("a supervised process's log file", () => {
  it('on a full disk (/dev/full) loses lines, not the process, and the child is drained to its end', async () => {
    const lines = said();
    // A megabyte of output: far past a pipe's buffer, so a child left undrained would block.
    const proc = startSupervised('talker', 'sh', ['-c', 'yes a line of output | head -c 1000000; exit 3'], {
      logFile: '/dev/full',
    });
    expect(await proc.exited).toBe(3);
    // The file's error comes back from the thread pool, possibly after the child's exit.
    for (let waited = 0; lines.length === 0 && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(lines).toEqual([
      "genjobs: talker's log /dev/full cannot be written (ENOSPC: no space left on device, write); its lines are dropped until it can\n",
    ]);
  });

  it('takes lines again once the file can be written, and says how much was dropped', async () => {
    const lines = said();
    const dir = await mkdtemp(join(tmpdir(), 'genjobs-log-'));
    try {
      const file = join(dir, 'later', 'part.log'); // its folder does not exist yet
      const sink = logSink('part', file, 50);
      sink.write('lost\n');
      await new Promise((r) => setTimeout(r, 20));
      await mkdir(join(dir, 'later'));
      await new Promise((r) => setTimeout(r, 60));
      sink.write('kept\n');
      await new Promise<void>((r) => sink.end(r));
      expect(await readFile(file, 'utf8')).toBe(
        '[genjobs: 5 bytes of this log were dropped: it could not be written]\nkept\n',
      );
      expect(lines.map((l) => l.replace(/ \(.*\)/, ''))).toEqual([
        `genjobs: part's log ${file} cannot be written; its lines are dropped until it can\n`,
        `genjobs: part's log ${file} is written again\n`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
