import { readFile } from 'node:fs/promises';
import { type Config, ConfigError } from '../config.ts';
import type { Logger } from '../log.ts';
import { Archive } from './archive.ts';
import { pgliteClient } from './pglite.ts';
import { postgresClient } from './postgres.ts';

/**
 * The archive the configuration names, or undefined when it is off (jobs then stay
 * resources until GENJOBS_JOB_TTL, as before the archive existed). Does not connect yet.
 */
export async function openArchive(config: Config, log: Logger): Promise<Archive | undefined> {
  // One line per upgrade of the schema, by whichever process got there first.
  const migrated = (versions: number[]) =>
    log.info(
      { from: versions[0]! - 1, to: versions.at(-1) },
      `archive schema migrated from version ${versions[0]! - 1} to ${versions.at(-1)}`,
    );
  switch (config.GENJOBS_ARCHIVE) {
    case 'off':
      return undefined;
    case 'pglite':
      return new Archive(await pgliteClient(config.GENJOBS_ARCHIVE_DIR), migrated);
    case 'postgres': {
      if (!config.GENJOBS_ARCHIVE_URL)
        throw new ConfigError(
          'invalid configuration:\n  GENJOBS_ARCHIVE_URL: required when GENJOBS_ARCHIVE=postgres',
        );
      const tlsCa = config.GENJOBS_ARCHIVE_TLS_CA_FILE
        ? await readFile(config.GENJOBS_ARCHIVE_TLS_CA_FILE, 'utf8')
        : undefined;
      return new Archive(
        postgresClient({
          connectionString: config.GENJOBS_ARCHIVE_URL,
          tlsCa,
          onError: (err) => log.warn({ err: err.message }, 'archive connection lost'),
        }),
        migrated,
      );
    }
  }
}
