import { readFile } from 'node:fs/promises';

/** A usage mistake: the command exits 2 with the message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A job input from `--input key=value` pairs (the value as a string: the service reads
 * "8" as 8 where the model wants a number) and `key:=json` pairs (the value as JSON:
 * arrays, objects, numbers), on top of an `--input-file` JSON object (`-` reads stdin).
 * An empty input is a mistake unless `allowEmpty` (an estimate of the defaults).
 */
export async function buildInput(
  pairs: string[],
  file: string | undefined,
  { allowEmpty = false } = {},
): Promise<Record<string, unknown>> {
  let input: Record<string, unknown> = {};
  if (file !== undefined) {
    const text =
      file === '-'
        ? await readStdin()
        : await readFile(file, 'utf8').catch((err: unknown) => {
            throw new UsageError(`cannot read --input-file ${file}: ${fileError(err)}`);
          });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UsageError(`--input-file ${file} is not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError(`--input-file ${file} must hold a JSON object`);
    }
    input = parsed as Record<string, unknown>;
  }
  const given = new Set<string>();
  for (const pair of pairs) {
    const m = /^([^=:]+)(:?=)(.*)$/s.exec(pair);
    if (!m) throw new UsageError(`--input ${JSON.stringify(pair)}: expected key=value or key:=json`);
    const [, key, op, value] = m as unknown as [string, string, string, string];
    // Over --input-file a pair wins; a second pair of the same key is a mistake, not a choice.
    if (given.has(key)) throw new UsageError(`--input ${key} is given twice`);
    given.add(key);
    if (op === '=') input[key] = value;
    else {
      try {
        input[key] = JSON.parse(value);
      } catch {
        throw new UsageError(`--input ${key}:= takes a JSON value, not ${JSON.stringify(value)}`);
      }
    }
  }
  if (Object.keys(input).length === 0 && !allowEmpty)
    throw new UsageError(
      file === undefined
        ? 'give the job input with --input key=value or --input-file'
        : `the job input is empty: --input-file ${file} holds no fields`,
    );
  return input;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a file could not be read or written, in words (`no such file`, not an errno). */
export function fileError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file is in the way';
  if (code === 'EROFS') return 'a read-only file system';
  return err instanceof Error ? err.message : String(err);
}
