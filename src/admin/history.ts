import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { type ArchiveStore, ArchiveUnavailableError } from '../archive/store.ts';
import { ConfigError } from '../config.ts';
import { refundOf } from '../jobs/record.ts';
import type { GenerationJob } from '../k8s/types.ts';
import { oneLineMistakes, outputOption, parsed } from './cli.ts';

type Output = { output?: string };

/**
 * The archive the environment names (GENJOBS_ARCHIVE, GENJOBS_ARCHIVE_URL…, as the api and
 * the controller read it: run the command in their Pods), or the one `--archive-url` gives.
 */
async function openHistory(cmd: Command): Promise<ArchiveStore> {
  const g = cmd.optsWithGlobals() as { archiveUrl?: string };
  const [{ loadConfig }, { openArchive }, { createLogger }] = await Promise.all([
    import('../config.ts'),
    import('../archive/open.ts'),
    import('../log.ts'),
  ]);
  // A connection string alone (GENJOBS_ARCHIVE unset) names a server too, as --archive-url does.
  const url = g.archiveUrl ?? (process.env.GENJOBS_ARCHIVE ? undefined : process.env.GENJOBS_ARCHIVE_URL);
  const config = loadConfig({
    ...process.env,
    ...(url ? { GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: url } : {}),
  });
  const archive = await openArchive(config, createLogger('history', 'warn')).catch((err: unknown) => {
    throw new ConfigError(`cannot open the archive: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (!archive)
    throw new ConfigError(
      `${process.env.GENJOBS_ARCHIVE ? 'the archive is off here (GENJOBS_ARCHIVE=off)' : 'no archive is named here'}: ` +
        'give --archive-url or GENJOBS_ARCHIVE_URL, or run this in the api or controller Pod, whose settings name it. ' +
        'In dev mode the embedded archive (PGlite) is open in the `genjobs dev` process and no other can read it: read archived jobs with GET /v1/jobs, or run dev with GENJOBS_ARCHIVE=postgres GENJOBS_ARCHIVE_URL=<url> and give this the same URL',
    );
  return archive;
}

export const HISTORY_HEADER = 'NAME\tSTATUS\tMODEL\tCOST_MICROCENTS\tCHARGED_MICROCENTS\tCREATED\tFINISHED';

/** What the account paid for the job: its cost less what came back, '-' before it ended. */
function charged(j: GenerationJob): number | '-' {
  const cost = j.spec.costMicroCents;
  if (j.status?.phase === 'completed') return cost;
  const refunded = refundOf(j);
  return refunded === undefined ? '-' : cost - refunded;
}

/** One archived job as a row of `genjobs history list`. */
export function historyRow(j: GenerationJob): string {
  return [
    j.metadata.name,
    j.status?.phase ?? 'pending',
    j.spec.model,
    j.spec.costMicroCents,
    charged(j),
    j.metadata.creationTimestamp ?? '-',
    j.status?.completedAt ?? '-',
  ].join('\t');
}

/**
 * A `history list` page from up to `limit + 1` rows: the first `limit`, and the cursor of the
 * next page (the last shown row's created,name) only when a row is left over, so a page that
 * happens to be full is not followed by an empty one.
 */
export function pageOf(
  rows: readonly GenerationJob[],
  limit: number,
): { jobs: GenerationJob[]; next?: string } {
  const jobs = rows.slice(0, limit);
  const last = jobs.at(-1);
  return rows.length > limit && last
    ? { jobs, next: `${last.metadata.creationTimestamp},${last.metadata.name}` }
    : { jobs };
}

async function using<T>(cmd: Command, fn: (a: ArchiveStore) => Promise<T>): Promise<T> {
  const archive = await openHistory(cmd);
  try {
    return await fn(archive);
  } catch (err) {
    // A server that does not answer: one line, as for any other setup problem.
    if (err instanceof ArchiveUnavailableError) throw new ConfigError(err.message);
    throw err;
  } finally {
    await archive.close();
  }
}

const MAX_LIMIT = 1_000;

interface ListOptions {
  account: string;
  status?: string;
  model?: string;
  limit: number;
  before?: [string, string];
}

function limitOf(v: string): number {
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 1 && n <= MAX_LIMIT)) throw new Error(`--limit is a whole number from 1 to ${MAX_LIMIT}: ${v}`);
  return n;
}

/** The `created,name` of the last row of a page, as a full page's `more:` line (or `nextBefore`) gives it; anything else is refused, never read as no cursor. */
function beforeOf(v: string): [string, string] {
  const [created = '', name = '', ...rest] = v.split(',');
  if (rest.length > 0 || !name || Number.isNaN(Date.parse(created)))
    throw new Error(`--before takes the created,name that a full page prints under it: ${v}`);
  return [created, name];
}

/** `genjobs history …`: archived jobs for operators (`kubectl get gj` shows the live ones). */
export function registerHistoryCommands(program: Command): void {
  const history = program
    .command('history')
    .description('archived jobs (the job history in PostgreSQL)')
    .option(
      '--archive-url <url>',
      "PostgreSQL connection string (default: GENJOBS_ARCHIVE_URL, or the api's settings in its Pod)",
    );
  history
    .command('get <id>')
    .description('an archived job, its whole resource as it was when archived (JSON, so -o json is the same)')
    .addOption(outputOption())
    .action(async (id: string, _o, cmd: Command) => {
      const job = await using(cmd, (a) => a.getJob(id));
      if (!job) {
        // Not a mistake in the command (2): what was asked for is not there, as kubectl get's 1.
        console.error(
          `genjobs: job ${id} is not in the archive (a job still live is not archived yet: kubectl get gj ${id})`,
        );
        process.exitCode = 1;
        return;
      }
      console.log(JSON.stringify(job, null, 2));
    });
  history
    .command('list')
    .description("an account's archived jobs, newest first")
    .requiredOption('--account <name>', 'the account')
    .addOption(
      new Option('--status <phase>', 'only this phase (archived jobs are finished)').choices([
        'completed',
        'failed',
        'cancelled',
      ]),
    )
    .option('--model <slug>', 'only this model')
    .option('--limit <n>', `rows per page, 1 to ${MAX_LIMIT}`, parsed(limitOf), 50)
    .option(
      '--before <created,name>',
      'the page after this row (the `more: --before …` line under each full page)',
      parsed(beforeOf),
    )
    .addOption(outputOption())
    .action(async (o: Output & ListOptions, cmd: Command) => {
      const rows = await using(cmd, (a) =>
        a.listJobs({
          account: o.account,
          status: o.status,
          model: o.model,
          limit: o.limit + 1,
          before: o.before,
        }),
      );
      const { jobs, next } = pageOf(rows, o.limit);
      if (o.output === 'json') console.log(JSON.stringify({ jobs, nextBefore: next ?? null }, null, 2));
      else {
        console.log([HISTORY_HEADER, ...jobs.map(historyRow)].join('\n'));
        // On stderr: stdout holds the table alone, for a script to read.
        if (next) console.error(`more: --before ${next}`);
      }
    });
  history
    .command('erase')
    .description(
      "delete an account's archived jobs and uploads created before a time, and their files (an account deleted with --keep-history; `accounts delete` erases a live one)",
    )
    .requiredOption('--account <name>', 'the account')
    .requiredOption(
      '--created-before <time>',
      'only what was created before this RFC 3339 time, or "now" (a newer account of the same name keeps its own: give its creation time)',
      parsed(createdBeforeOf),
    )
    .addOption(outputOption())
    .action(async (o: Output & { account: string; createdBefore: string }, cmd: Command) => {
      const blob = await blobOfThisProcess();
      const { eraseAccountHistory } = await import('../archive/erase.ts');
      const rows = await using(cmd, (a) =>
        eraseAccountHistory(a, blob.store, o.account, { before: o.createdBefore }),
      );
      const result = {
        account: o.account,
        createdBefore: o.createdBefore,
        rowsDeleted: rows,
        files: blob.where,
      };
      if (o.output === 'json') console.log(JSON.stringify(result, null, 2));
      else
        console.log(
          `erased ${rows} archived rows of account ${o.account} created before ${o.createdBefore}, with their files (${blob.where})`,
        );
    });
  oneLineMistakes(history);
}

/** A time as the archive compares creation times: RFC 3339 text to the second, UTC. */
function createdBeforeOf(v: string): string {
  const t = v === 'now' ? Date.now() : /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(t))
    throw new Error(`--created-before is an RFC 3339 time (2026-11-26T03:00:00Z) or "now": ${v}`);
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The blob store the environment names, as the api and the controller read it (run the
 * command in their Pods): a filesystem store whose folder is not here is refused, never
 * taken for an empty one (the files would stay).
 */
async function blobOfThisProcess() {
  const [{ loadConfig, blobSettings }, { blobConfigSchema }, { createBlob }, { createLogger }] =
    await Promise.all([
      import('../config.ts'),
      import('../blob/config.ts'),
      import('../blob/create.ts'),
      import('../log.ts'),
    ]);
  const settings = blobConfigSchema.parse(blobSettings(loadConfig(process.env)));
  // The store's own layout, not any folder: rows erased with their files "deleted" from the
  // wrong folder would leave the files with nothing left to find them by.
  if (settings.type === 'filesystem' && !existsSync(join(settings.dir, 'objects')))
    throw new ConfigError(
      `${settings.dir} is not a genjobs blob store here (no objects/ in it; GENJOBS_BLOB_DIR): run this where the api runs (kubectl exec), whose files it deletes`,
    );
  const where = settings.type === 's3' ? `s3 bucket ${settings.s3?.bucket}` : settings.dir;
  return {
    store: createBlob(settings, { now: Date.now, logger: createLogger('history', 'warn') }).store,
    where,
  };
}
