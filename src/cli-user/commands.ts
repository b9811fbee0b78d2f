import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { type Command, type CommanderError, Option } from 'commander';
import {
  createClient,
  type GenjobsClient,
  GenjobsError,
  type Job,
  type PresignRequest,
} from '../client/index.ts';
import { downloadOutputs } from './download.ts';
import { buildInput, readError, UsageError } from './input.ts';
import { Progress } from './progress.ts';
import { loadSettings, type Settings } from './settings.ts';

/**
 * Exit codes of the user commands: a script can tell a failed job from a refused request
 * from a mistake in the command line.
 */
export const EXIT = {
  /** The command did what it was asked; a waited-for job completed. */
  ok: 0,
  /** The job failed (its error is printed). */
  jobFailed: 1,
  /** Usage: an unknown option, a missing argument, unreadable input. */
  usage: 2,
  /** The job was cancelled. */
  jobCancelled: 3,
  /** The service refused the request (auth, balance, not found, invalid input). */
  refused: 4,
  /** The service could not be reached or was unavailable after retries. */
  unavailable: 5,
  /** The account's limits (request rate, concurrent jobs) still refused it after retries: try later. */
  throttled: 6,
  /** Interrupted (Ctrl-C) while waiting; the job goes on. */
  interrupted: 130,
} as const;

type Output = { output?: string };
const outputOption = () =>
  new Option('-o, --output <format>', 'json: print the record as JSON').choices(['json']);

function client(): GenjobsClient {
  const s = loadSettings();
  return createClient({ baseUrl: s.url, apiKey: s.apiKey });
}

function exitFor(job: Job): number {
  return job.status === 'completed'
    ? EXIT.ok
    : job.status === 'cancelled'
      ? EXIT.jobCancelled
      : EXIT.jobFailed;
}

/** A record as plain `key: value` lines. */
function plain(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join('\n');
}

function print(o: Output, value: unknown, text: () => string): void {
  console.log(o.output === 'json' ? JSON.stringify(value, null, 2) : text());
}

/** Follows a job to its end, showing progress on stderr; Ctrl-C stops waiting (exit 130). */
async function follow(c: GenjobsClient, jobId: string, o: Output): Promise<Job> {
  const progress = o.output === 'json' && !process.stderr.isTTY ? undefined : new Progress(process.stderr);
  const ac = new AbortController();
  const interrupt = () => ac.abort(new Interrupted());
  process.once('SIGINT', interrupt);
  try {
    return await c.jobs.wait(jobId, { signal: ac.signal, onUpdate: (j) => progress?.update(j) });
  } finally {
    process.off('SIGINT', interrupt);
    progress?.done();
  }
}

class Interrupted extends Error {}

/** Prints a finished job (and downloads its outputs); answers the exit code. */
async function finish(job: Job, o: Output & { download?: string }): Promise<number> {
  const files = job.status === 'completed' && o.download ? await downloadOutputs(job, o.download) : [];
  print(o, job, () => {
    const lines = [`${job.jobId} ${job.status}`];
    if (job.error) lines.push(`error: ${job.error.code}: ${job.error.message}`);
    for (const out of job.outputs ?? []) lines.push(`output: ${out.url}`);
    for (const f of files) lines.push(`saved: ${f}`);
    return lines.join('\n');
  });
  return exitFor(job);
}

/** What to do when the service did not answer, given where its address came from. */
export function unreachableHint(s: Settings): string {
  const from =
    s.source === 'environment'
      ? 'GENJOBS_URL'
      : s.source === 'dev mode'
        ? `the dev mode's api-url file (is \`npm run dev\` still running?)`
        : 'the default: neither GENJOBS_URL nor a dev mode is set';
  return `${s.url} is from ${from}; set GENJOBS_URL to the service's address`;
}

/** Runs an action and turns its outcome into the exit code. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<number | undefined>) {
  return async (...args: A) => {
    try {
      process.exitCode = (await fn(...args)) ?? EXIT.ok;
    } catch (err) {
      if (err instanceof Interrupted) {
        console.error('genjobs: stopped waiting; the job goes on (genjobs jobs watch ID to follow it again)');
        process.exitCode = EXIT.interrupted;
      } else if (err instanceof UsageError) {
        console.error(`genjobs: ${err.message}`);
        process.exitCode = EXIT.usage;
      } else if (err instanceof GenjobsError) {
        const id = err.requestId ? ` (request ${err.requestId})` : '';
        console.error(`genjobs: ${err.code}: ${err.message}${id}`);
        if (err.status === 0) console.error(`genjobs: ${unreachableHint(loadSettings())}`);
        process.exitCode =
          err.status === 429
            ? EXIT.throttled
            : err.status === 0 || err.retryable
              ? EXIT.unavailable
              : EXIT.refused;
      } else throw err;
    }
  };
}

/** Commander's own usage errors exit 2, as the other usage mistakes do. */
function usageExit(cmd: Command): Command {
  return cmd.exitOverride((err: CommanderError) => {
    process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  });
}

const CONTENT_TYPES: Record<string, PresignRequest['contentType']> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
};

/**
 * The commands for API users, over HTTP with the typed client: `run`, `jobs`, `models`,
 * `upload`. Apart from the admin commands, which speak to Kubernetes.
 */
export function registerUserCommands(program: Command): void {
  usageExit(
    program
      .command('run')
      .description(
        'submit a job; with --wait or --download, follow it to the end (exit 0 completed, 1 failed, 3 cancelled)',
      )
      .argument('<model>', 'model slug, e.g. genjobs/reference-video/text-to-video')
      .option(
        '-i, --input <key=value>',
        'an input field (repeatable); key:=json for a JSON value',
        collect,
        [],
      )
      .option('--input-file <file>', 'the input as a JSON object (- for stdin)')
      .option('--wait', 'wait for the job to finish')
      .option('--download <dir>', 'wait, then save the outputs into this directory')
      .option('--idempotency-key <key>', 'default: a new random key (retries never make a second job)')
      .addOption(outputOption()),
  ).action(
    action(
      async (
        model: string,
        o: Output & {
          input: string[];
          inputFile?: string;
          wait?: boolean;
          download?: string;
          idempotencyKey?: string;
        },
      ) => {
        const input = await buildInput(o.input, o.inputFile);
        const c = client();
        const submitted = await c.jobs.submit(
          { model, input },
          { idempotencyKey: o.idempotencyKey ?? crypto.randomUUID() },
        );
        if (!o.wait && !o.download) {
          // The id alone on stdout, for `id=$(genjobs run …)`; what it is doing goes to stderr.
          if (o.output !== 'json') {
            const eta = submitted.estimatedCompletionTime;
            process.stderr.write(`${submitted.status}${eta ? ` (ETA ${eta})` : ''}\n`);
          }
          print(o, submitted, () => submitted.jobId);
          return EXIT.ok;
        }
        return finish(await follow(c, submitted.jobId, o), o);
      },
    ),
  );

  const jobs = usageExit(program.command('jobs').description('read, list, cancel and watch jobs (HTTP API)'));
  usageExit(jobs.command('get').argument('<jobId>').addOption(outputOption())).action(
    action(async (jobId: string, o: Output) => {
      const job = await client().jobs.get(jobId);
      print(o, job, () => plain(job));
      return EXIT.ok;
    }),
  );
  usageExit(
    jobs
      .command('list')
      .option('--status <status>', 'pending, processing, completed, failed or cancelled')
      .option('--model <slug>')
      .option('--limit <n>', 'at most this many (1 to 100)', '20')
      .option('--cursor <cursor>', 'the nextCursor of the previous page')
      .addOption(outputOption()),
  ).action(
    action(async (o: Output & { status?: string; model?: string; limit: string; cursor?: string }) => {
      const page = await client().jobs.list({
        status: o.status as Job['status'] | undefined,
        model: o.model,
        limit: Number(o.limit),
        cursor: o.cursor,
      });
      print(o, page, () =>
        [
          ...page.jobs.map((j) => `${j.jobId}  ${j.status.padEnd(10)}  ${j.createdAt}  ${j.model}`),
          ...(page.nextCursor ? [`more: --cursor ${page.nextCursor}`] : []),
        ].join('\n'),
      );
      return EXIT.ok;
    }),
  );
  usageExit(jobs.command('cancel').argument('<jobId>').addOption(outputOption())).action(
    action(async (jobId: string, o: Output) => {
      const r = await client().jobs.cancel(jobId);
      print(o, r, () => `${r.jobId} cancelled, refunded ${r.refundedMicroCents} micro-cents`);
      return EXIT.ok;
    }),
  );
  usageExit(
    jobs
      .command('watch')
      .description('follow a job to its end (exit 0 completed, 1 failed, 3 cancelled)')
      .argument('<jobId>')
      .option('--download <dir>', 'save the outputs into this directory')
      .addOption(outputOption()),
  ).action(
    action(async (jobId: string, o: Output & { download?: string }) =>
      finish(await follow(client(), jobId, o), o),
    ),
  );

  usageExit(
    program
      .command('balance')
      .description("the key's account: balance, credit held for unfinished jobs, spend, plan (HTTP API)")
      .addOption(outputOption()),
  ).action(
    action(async (o: Output) => {
      const account = await client().account.get();
      print(o, account, () => plain(account));
      return EXIT.ok;
    }),
  );

  const models = usageExit(program.command('models').description('the model catalog (HTTP API)'));
  usageExit(
    models.command('list').option('--category <c>').option('--capability <c>').addOption(outputOption()),
  ).action(
    action(async (o: Output & { category?: string; capability?: string }) => {
      const list = await client().catalog.models({ category: o.category, capability: o.capability });
      print(o, list, () =>
        list
          .map(
            (m) =>
              `${m.slug.padEnd(48)} ${m.category.padEnd(6)} ${m.pricing.baseCredits} micro-cents ${
                m.pricing.perSecond ? `per second of ${m.pricing.perSecond.field}` : 'per job'
              }`,
          )
          .join('\n'),
      );
      return EXIT.ok;
    }),
  );

  usageExit(
    program
      .command('upload')
      .description('upload a file for job input; prints its fileUrl (deleted after 60 minutes)')
      .argument('<file>')
      .option('--content-type <type>', 'default: from the file extension')
      .addOption(outputOption()),
  ).action(
    action(async (file: string, o: Output & { contentType?: string }) => {
      const contentType = (o.contentType ??
        CONTENT_TYPES[extname(file).toLowerCase()]) as PresignRequest['contentType'];
      if (!contentType) throw new UsageError(`cannot tell the content type of ${file}: give --content-type`);
      const data = await readFile(file).catch((err: unknown) => {
        throw new UsageError(`cannot read ${file}: ${readError(err)}`);
      });
      const r = await client().uploads.upload(new Uint8Array(data), {
        contentType,
        filename: basename(file),
      });
      print(o, r, () => r.fileUrl);
      return EXIT.ok;
    }),
  );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
