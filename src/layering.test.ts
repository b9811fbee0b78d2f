import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The src-relative modules a file imports (static and dynamic), resolved from its folder. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => relative(SRC, resolve(dirname(file), s)));
}

/**
 * Who may depend on the api: the api itself, the composition roots that start it, and the
 * build step that generates the client's types from the api's OpenAPI document (a script,
 * never imported by the client it writes).
 */
const MAY_IMPORT_API = (file: string) =>
  file.startsWith('api/') ||
  file.startsWith('dev/') ||
  file === 'cli.ts' ||
  file === 'client/generate-types.ts';

describe('layering', () => {
  it('nothing but the api and the composition roots imports from src/api', () => {
    const offenders = sources(SRC).flatMap((path) => {
      const file = relative(SRC, path);
      if (MAY_IMPORT_API(file)) return [];
      return importsOf(path)
        .filter((m) => m.startsWith('api/'))
        .map((m) => `${file} → ${m}`);
    });
    expect(offenders).toEqual([]);
  });
});
