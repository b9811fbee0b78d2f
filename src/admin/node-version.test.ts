import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.ts';
import { NODE_FOR_KUBERNETES, olderThan, requireNode } from './node-version.ts';

describe('the Node an entrypoint needs', () => {
  it.each([
    ['20.20.2', '22.19.0', true],
    ['22.18.9', '22.19.0', true],
    ['22.19.0', '22.19.0', false],
    ['22.20.0', '22.19.0', false],
    ['24.0.0', '22.19.0', false],
    ['23.0.0', '24.0.0', true],
  ])('%s older than %s: %s', (have, need, older) => {
    expect(olderThan(have, need)).toBe(older);
  });

  it("the Kubernetes commands' floor is undici's (it crashes on anything older)", () => {
    const undici = JSON.parse(
      readFileSync(new URL('../../node_modules/undici/package.json', import.meta.url), 'utf8'),
    ) as { engines: { node: string } };
    expect(undici.engines.node).toBe(`>=${NODE_FOR_KUBERNETES}`);
  });

  it('a command and its subcommands refuse an older Node before their action runs', async () => {
    const ran: string[] = [];
    const program = (have: string) => {
      const p = new Command('genjobs').exitOverride();
      const accounts = requireNode(p.command('accounts'), '22.19.0', have);
      accounts.command('list').action(() => void ran.push(have));
      return p;
    };
    await expect(program('20.20.2').parseAsync(['accounts', 'list'], { from: 'user' })).rejects.toThrow(
      new ConfigError('`genjobs accounts` needs Node 22.19.0 or newer; this is Node 20.20.2'),
    );
    await program('24.1.0').parseAsync(['accounts', 'list'], { from: 'user' });
    expect(ran).toEqual(['24.1.0']);
  });
});
