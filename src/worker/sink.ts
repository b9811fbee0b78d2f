import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where a runtime hands its output files. The sink decides where they live (the job's own
 * prefix in the blob store, a directory in tests) and answers the URL clients download from.
 */
export interface OutputSink {
  /**
   * Stores the local file `file` as `name` (a plain file name such as `output-0.png`, unique
   * within the job) and answers its public URL.
   */
  put(name: string, file: string, contentType: string): Promise<string>;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws unless `name` is a plain file name: no separators, no `..`, nothing a URL must escape. */
export function assertOutputName(name: string): void {
  if (!SAFE_NAME.test(name) || name.includes('..'))
    throw new Error(`invalid output name: ${JSON.stringify(name)}`);
}

/** A sink that copies files into a directory served at `baseUrl`, for tests and local use. */
export class DirectorySink implements OutputSink {
  readonly dir: string;
  readonly baseUrl: string;
  /** What was stored, by name, in the order it was stored. */
  readonly stored = new Map<string, { file: string; contentType: string }>();

  constructor(dir: string, baseUrl: string) {
    this.dir = dir;
    this.baseUrl = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  }

  async put(name: string, file: string, contentType: string): Promise<string> {
    assertOutputName(name);
    await mkdir(this.dir, { recursive: true });
    const target = join(this.dir, name);
    await copyFile(file, target);
    this.stored.set(name, { file: target, contentType });
    return new URL(name, this.baseUrl).href;
  }
}
