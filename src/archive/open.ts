import { readFile } from 'node:fs/promises';
import { blobSettings, type Config, ConfigError } from '../config.ts';
import type { Logger } from '../log.ts';
import { Archive, type ArchiveOptions } from './archive.ts';
import { ownerMark } from './claim.ts';
import { pgliteClient } from './pglite.ts';
import { postgresClient } from './postgres.ts';

/**
 * The archive the configuration names, or undefined when it is off (jobs then stay
 * resources until GENJOBS_JOB_TTL, as before the archive existed). Does not connect yet.
 */
export async function openArchive(
  config: Config,
  log: Logger,
  namespace = config.GENJOBS_NAMESPACE ?? 'default',
): Promise<Archive | undefined> {
  if (config.GENJOBS_ARCHIVE === 'off') return undefined;
  // The install is known by its blob signing secret (claim.ts), which the api and the
  // controller always have; a rotation's previous secrets still name it. Without one (the
  // admin's `history get|list` run elsewhere) the archive is read unclaimed.
  const blob = config.GENJOBS_BLOB_SECRET ? blobSettings(config) : undefined;
  const options: ArchiveOptions = {
    // One line per upgrade of the schema, by whichever process got there first.
    onMigrated: (versions) =>
      log.info(
        { from: versions[0]! - 1, to: versions.at(-1) },
        `archive schema migrated from version ${versions[0]! - 1} to ${versions.at(-1)}`,
      ),
    ...(blob
      ? {
          owner: {
            marks: [blob.signingSecret, ...blob.previousSigningSecrets].map(ownerMark),
            namespace,
            api: config.GENJOBS_PUBLIC_URL,
          },
        }
      : {}),
    onClaimed: (outcome) =>
      log.info(
        { namespace },
        outcome === 'claimed'
          ? 'the archive database is claimed for this install (namespace and blob signing secret): another install sharing it is refused'
          : "the archive's claim moved to the current blob signing secret",
      ),
  };
  switch (config.GENJOBS_ARCHIVE) {
    case 'pglite':
      return new Archive(await pgliteClient(config.GENJOBS_ARCHIVE_DIR), options);
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
        options,
      );
    }
  }
}
