import type { Command } from 'commander';
import { type ArchiveStore, ArchiveUnavailableError } from '../archive/store.ts';
import { ConfigError } from '../config.ts';
import { AppError } from '../errors.ts';
import type { GenerationJob } from '../k8s/types.ts';
import { oneLineMistakes } from './cli.ts';

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
  const config = loadConfig({
    ...process.env,
    ...(g.archiveUrl ? { GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: g.archiveUrl } : {}),
  });
  const archive = await openArchive(config, createLogger('history', 'warn')).catch((err: unknown) => {
    throw new ConfigError(`cannot open the archive: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (!archive)
    throw new ConfigError(
      'the archive is off here (GENJOBS_ARCHIVE=off): give --archive-url, or run this where the api runs. ' +
        'In dev mode the embedded archive belongs to the running `genjobs dev`: read archived jobs with GET /v1/jobs',
    );
  return archive;
}

export const HISTORY_HEADER = 'NAME\tSTATUS\tMODEL\tCOST\tCREATED\tFINISHED';

/** One archived job as a row of `genjobs history list`. */
export function historyRow(j: GenerationJob): string {
  return [
    j.metadata.name,
    j.status?.phase ?? 'pending',
    j.spec.model,
    j.spec.costMicroCents,
    j.metadata.creationTimestamp ?? '-',
    j.status?.completedAt ?? '-',
  ].join('\t');
}

/** The cursor of the next `history list` page: the last row's (created, name). */
export function nextBefore(jobs: readonly GenerationJob[], limit: number): string | undefined {
  const last = jobs.at(-1);
  return jobs.length === limit && last
    ? `${last.metadata.creationTimestamp},${last.metadata.name}`
    : undefined;
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

/** `genjobs history …`: archived jobs for operators (`kubectl get gj` shows the live ones). */
export function registerHistoryCommands(program: Command): void {
  const history = program
    .command('history')
    .description('archived jobs (the job history in PostgreSQL)')
    .option('--archive-url <url>', 'PostgreSQL connection string (default: GENJOBS_ARCHIVE_URL)');
  history
    .command('get <id>')
    .description('an archived job, its whole resource as it was when archived')
    .action(async (id: string, _o, cmd: Command) => {
      const job = await using(cmd, (a) => a.getJob(id));
      if (!job) throw new AppError('JOB_NOT_FOUND', `job ${id} is not in the archive`);
      console.log(JSON.stringify(job, null, 2));
    });
  history
    .command('list')
    .description("an account's archived jobs, newest first")
    .requiredOption('--account <name>', 'the account')
    .option('--status <phase>', 'completed, failed or cancelled')
    .option('--model <slug>', 'only this model')
    .option('--limit <n>', 'rows per page', (v) => Number(v), 50)
    .option('--before <created,name>', 'the page after this row (printed under each full page)')
    .option('-o, --output <format>', 'json for scripts')
    .action(async (o: Output & Record<string, string | number | undefined>, cmd: Command) => {
      const before = typeof o.before === 'string' ? o.before.split(',') : undefined;
      const limit = Number(o.limit);
      const jobs = await using(cmd, (a) =>
        a.listJobs({
          account: String(o.account),
          status: o.status as string | undefined,
          model: o.model as string | undefined,
          limit,
          before: before?.length === 2 ? [before[0]!, before[1]!] : undefined,
        }),
      );
      const next = nextBefore(jobs, limit);
      if (o.output === 'json') console.log(JSON.stringify({ jobs, nextBefore: next ?? null }, null, 2));
      else {
        console.log([HISTORY_HEADER, ...jobs.map(historyRow)].join('\n'));
        if (next) console.log(`\nmore: --before ${next}`);
      }
    });
  oneLineMistakes(history);
}
