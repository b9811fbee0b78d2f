import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectorySink } from './sink.ts';
import { tempDir } from './test-helpers.ts';

describe('DirectorySink', () => {
  let root: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => root.cleanup());

  it('copies the file into its directory and answers base URL + name', async () => {
    const source = join(root.dir, 'a.png');
    await writeFile(source, 'png bytes');
    const sink = new DirectorySink(join(root.dir, 'out'), 'http://blob.test/jobs/j1');
    const url = await sink.put('output-0.png', source, 'image/png');
    expect(url).toBe('http://blob.test/jobs/j1/output-0.png');
    expect(await readFile(join(root.dir, 'out', 'output-0.png'), 'utf8')).toBe('png bytes');
    expect(sink.stored.get('output-0.png')?.contentType).toBe('image/png');
  });

  it.each(['../escape.png', 'a/b.png', '', '.hidden', 'name with space.png', '..'])(
    'refuses the name %j',
    async (name) => {
      const source = join(root.dir, 'a.png');
      await writeFile(source, 'x');
      const sink = new DirectorySink(join(root.dir, 'out'), 'http://blob.test/');
      await expect(sink.put(name, source, 'image/png')).rejects.toThrow('invalid output name');
    },
  );
});
