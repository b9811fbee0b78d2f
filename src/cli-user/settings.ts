import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devDir } from '../dev/dir.ts';

/** Where the user commands find the service and the key. */
export interface Settings {
  url: string;
  apiKey: string | undefined;
  /** Where the address came from, for messages. */
  source: 'environment' | 'dev mode' | 'default';
  /** Where the key came from (none: no key). */
  keySource: 'environment' | 'dev mode' | undefined;
  /** Where dev mode's files are looked for. */
  devDir: string;
}

/**
 * GENJOBS_URL and GENJOBS_API_KEY; each one unset falls back to what `genjobs dev` wrote
 * in its directory ($GENJOBS_DEV_DIR, default ~/.genjobs/dev: `api-url` and `api-key`),
 * so after `npm run dev` the commands work with no setup; else http://127.0.0.1:8080.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const dir = devDir(env);
  const devFile = (name: string) => {
    const path = join(dir, name);
    return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
  };
  const url = env.GENJOBS_URL || devFile('api-url');
  const apiKey = env.GENJOBS_API_KEY || devFile('api-key');
  return {
    url: url ?? 'http://127.0.0.1:8080',
    apiKey,
    source: env.GENJOBS_URL ? 'environment' : url ? 'dev mode' : 'default',
    keySource: env.GENJOBS_API_KEY ? 'environment' : apiKey ? 'dev mode' : undefined,
    devDir: dir,
  };
}

/** Where the service's address came from, in words. */
export function urlSource(s: Settings): string {
  return origin(
    s.source,
    'GENJOBS_URL',
    join(s.devDir, 'api-url'),
    `the default: GENJOBS_URL is not set and ${s.devDir} has no api-url (no dev mode there)`,
  );
}

/** Where the API key came from, in words. */
export function keySource(s: Settings): string {
  return origin(
    s.keySource,
    'GENJOBS_API_KEY',
    join(s.devDir, 'api-key'),
    `nowhere: GENJOBS_API_KEY is not set and ${s.devDir} has no api-key`,
  );
}

/** One setting's origin: its variable, the dev mode's file, or neither (`otherwise`). */
function origin(
  source: Settings['source'] | Settings['keySource'],
  variable: string,
  devFile: string,
  otherwise: string,
): string {
  if (source === 'environment') return variable;
  if (source === 'dev mode') return `the dev mode's ${devFile}`;
  return otherwise;
}
