import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT, exitHelp } from './exit.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the exit codes of the user commands', () => {
  it('each one is in the README and in --help', () => {
    const documented =
      /Exit codes \(also in `genjobs run --help`\):([\s\S]*?)\n- \*\*/.exec(readme)?.[1] ?? '';
    const inReadme = [...documented.matchAll(/(?:^|[:,(]|and)\s+(\d+) [a-z]/g)].map((m) => Number(m[1]));
    const inHelp = [...exitHelp().matchAll(/^ {2}(\d+) /gm)].map((m) => Number(m[1]));
    const codes = Object.values(EXIT);
    expect(inReadme).toEqual(codes);
    expect(inHelp).toEqual(codes);
  });
});
