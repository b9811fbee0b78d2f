import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/dev/controlplane.ts';
import { eventually } from '../support/cluster.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-reaper-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const alive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('container processes of a node agent that dies', () => {
  it('are killed, the whole group, even when the agent is killed with SIGKILL', async () => {
    // An agent stand-in: starts two containers (one with a background grandchild), reports
    // their process groups, and waits to be killed.
    const script = `
      import { startContainer } from '${REPO_ROOT}src/dev/nodeagent/process.ts';
      const start = (name) => startContainer({
        argv: ['sh', '-c', 'sleep 300 & sleep 300'],
        env: { PATH: process.env.PATH },
        cwd: process.env.DIR,
        logFile: process.env.DIR + '/' + name + '.log',
      });
      const finished = startContainer({ argv: ['true'], env: { PATH: process.env.PATH }, cwd: process.env.DIR, logFile: process.env.DIR + '/t.log' });
      await finished.exited;
      console.log([start('a').pid, start('b').pid].join(' '));
      setInterval(() => {}, 1000);
    `;
    const agent = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(createInterface({ input: agent.stdout! }), 'line');
    const groups = String(line).split(' ').map(Number);
    expect(groups).toHaveLength(2);
    for (const g of groups) expect(alive(g)).toBe(true);

    agent.kill('SIGKILL');
    await once(agent, 'exit');
    // sh ignores nothing here: SIGTERM ends both groups, well before the 5 s SIGKILL.
    await eventually(() => groups.every((g) => !alive(g)), 10_000, 'the container groups gone');
  });
});
