import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { type Command, type CommanderError, InvalidArgumentError, Option } from 'commander';
import { notFromTheApi } from '../client/errors.ts';
import {
  createClient,
  type GenjobsClient,
  GenjobsError,
  type Job,
  type PresignRequest,
  TERMINAL,
} from '../client/index.ts';
import { dollars, microCentsText } from '../ledger/dollars.ts';
import { downloadOutputs, prepareDownloadDir, SaveError } from './download.ts';
import { EXIT, exitForError, exitForJob, exitHelp, outcomeUnknown } from './exit.ts';
import { buildInput, fileError, UsageError } from './input.ts';
import { describeEstimate, describeModel, priceText } from './model-help.ts';
import { Progress } from './progress.ts';
import { keySource, loadSettings, type Settings, urlSource } from './settings.ts';

type Output = { output?: string };
const outputOption = () =>
  new Option('-o, --output <format>', 'json: print the record as JSON').choices(['json']);

/** The client, on the address and key the settings give; a bad address is a usage mistake. */
function client(): GenjobsClient {
  const s = loadSettings();
  try {
    return createClient({ baseUrl: s.url, apiKey: s.apiKey });
  } catch (err) {
    // createClient refuses nothing but an address that is not http(s).
    if (!(err instanceof TypeError)) throw err;
    throw new UsageError(
      `${urlSource(s)} holds ${JSON.stringify(s.url)}, which is not an http:// or https:// address`,
    );
  }
}

/** A job id as an argument: one that a URL would read as another endpoint is a mistake. */
function jobIdOf(id: string): string {
  if (id === '' || id === '.' || id === '..') throw new UsageError(`${JSON.stringify(id)} is not a job id`);
  return id;
}

/** A record as `key: value` lines; an amount of money also in dollars (`costMicroCents: 134000 ($0.134)`). */
function plain(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => {
      if (k.endsWith('MicroCents') && typeof v === 'number') return `${k}: ${v} (${dollars(v)})`;
      return `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
    })
    .join('\n');
}

/** A row of `jobs list`: id, status, creation, model; a waiting job's place and an unfinished one's ETA. */
function listLine(j: Job): string {
  const waiting = j.queuePosition === undefined ? [] : [`queue ${j.queuePosition}`];
  const eta =
    j.estimatedCompletionTime && !TERMINAL.includes(j.status) ? [`eta ${j.estimatedCompletionTime}`] : [];
  return [j.jobId, j.status.padEnd(10), j.createdAt, j.model, ...waiting, ...eta].join('  ');
}

function print(o: Output, value: unknown, text: () => string): void {
  console.log(o.output === 'json' ? JSON.stringify(value, null, 2) : text());
}

/**
 * Follows a job to its end, showing progress on stderr. SIGINT (Ctrl-C) or SIGTERM (a CI
 * runner's cancel) stops the waiting, not the job.
 */
async function follow(c: GenjobsClient, jobId: string, o: Output): Promise<Job> {
  const progress = o.output === 'json' && !process.stderr.isTTY ? undefined : new Progress(process.stderr);
  const ac = new AbortController();
  const stop = (signal: NodeJS.Signals) => ac.abort(new Interrupted(jobId, signal));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await c.jobs.wait(jobId, { signal: ac.signal, onUpdate: (j) => progress?.update(j) });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    progress?.done();
  }
}

/** The waiting for a job was stopped by a signal; the job goes on. */
class Interrupted extends Error {
  readonly jobId: string;
  readonly signal: NodeJS.Signals;
  constructor(jobId: string, signal: NodeJS.Signals) {
    super(`${signal} while waiting for job ${jobId}`);
    this.jobId = jobId;
    this.signal = signal;
  }
}

/**
 * Prints a finished job and downloads its outputs; answers the exit code. Outputs that
 * could not be saved do not hide the record: it is printed, and the exit code says so.
 */
async function finish(job: Job, o: Output & { download?: string }): Promise<number> {
  let files: string[] = [];
  let unsaved: SaveError | undefined;
  if (job.status === 'completed' && o.download) {
    try {
      files = await downloadOutputs(job, o.download);
    } catch (err) {
      if (!(err instanceof SaveError)) throw err;
      unsaved = err;
    }
  }
  print(o, job, () => {
    const lines = [`${job.jobId} ${job.status}`];
    if (job.error) lines.push(`error: ${job.error.code}: ${job.error.message}`);
    for (const out of job.outputs ?? []) lines.push(`output: ${out.url}`);
    for (const f of files) lines.push(`saved: ${f}`);
    return lines.join('\n');
  });
  if (!unsaved) return exitForJob(job);
  console.error(`genjobs: the job completed but its outputs could not be saved: ${unsaved.message}`);
  return EXIT.outputsNotSaved;
}

/** Where the address of a service that did not answer (properly) came from, and what may be wrong. */
export function unreachableHint(s: Settings): string {
  const running = s.source === 'dev mode' ? '; is `npm run dev` still running?' : '';
  return `${s.url} is from ${urlSource(s)}${running}`;
}

/**
 * Runs an action and turns its outcome into the exit code: every failure is one line on
 * stderr (GENJOBS_DEBUG=1 adds the stack of an unexpected one), never a Node stack trace.
 */
function action<A extends unknown[]>(fn: (...args: A) => Promise<number | undefined>) {
  return async (...args: A) => {
    try {
      process.exitCode = (await fn(...args)) ?? EXIT.ok;
    } catch (err) {
      process.exitCode = failed(err);
    }
  };
}

/**
 * Where the settings behind a failure came from, on the same line: the address when the
 * service did not answer as one (not an upload's bucket, which a PUT reaches instead), the
 * key and the address when the key was refused (one dev dir's key sent to another instance).
 */
function settingsHint(err: GenjobsError, s: Settings): string {
  const noService = err.status === 0 || err.code === 'INVALID_RESPONSE';
  if (noService && URL.canParse(s.url) && err.message.includes(new URL(s.url).host))
    return ` [${unreachableHint(s)}]`;
  if (notFromTheApi(err))
    return ` [not an answer of the genjobs api (its errors have a code); ${unreachableHint(s)}]`;
  if (err.status === 401) return ` [the key is from ${keySource(s)}; ${s.url} is from ${urlSource(s)}]`;
  return '';
}

/**
 * `--input image_urls=https://…` sends a string where the model wants a list: say how a list
 * (or an object) is given, for each field the service named.
 */
function jsonInputHint(err: GenjobsError): string {
  const fields = err.errors.flatMap(({ pointer, message }) => {
    const field = /^\/input\/([^/]+)$/.exec(pointer)?.[1];
    const kind = /must be (array|object)/.exec(message)?.[1];
    return field && kind ? [`--input ${field}:='${kind === 'array' ? '[…]' : '{…}'}'`] : [];
  });
  return fields.length === 0 ? '' : ` [a list or object is given as JSON: ${fields.join(', ')}]`;
}

/** Says what went wrong; answers the exit code. */
function failed(err: unknown): number {
  if (err instanceof Interrupted) {
    console.error(
      `genjobs: stopped waiting; the job goes on (genjobs jobs watch ${err.jobId} to follow it again)`,
    );
    return err.signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  }
  if (err instanceof UsageError) {
    console.error(`genjobs: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof GenjobsError) {
    const id = err.requestId ? ` (request ${err.requestId})` : '';
    console.error(
      `genjobs: ${err.code}: ${err.message}${id}${settingsHint(err, loadSettings())}${jsonInputHint(err)}`,
    );
    if (err.idempotencyKey && outcomeUnknown(err))
      console.error(
        `genjobs: the job may have been made all the same; run the same command with --idempotency-key ${err.idempotencyKey} to get it (no second job or charge), or look with genjobs jobs list`,
      );
    return exitForError(err);
  }
  console.error(`genjobs: ${err instanceof Error ? err.message : String(err)}`);
  if (process.env.GENJOBS_DEBUG && err instanceof Error) console.error(err.stack);
  return EXIT.unexpected;
}

/** `--limit`: a whole number from 1 to 100, checked here (exit 2), not by the service (exit 4). */
function pageSize(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > 100) {
    throw new InvalidArgumentError('a whole number from 1 to 100');
  }
  return Number(value);
}

/**
 * A command-line mistake (an unknown option, a refused value) exits 2 as one line on stderr
 * (`genjobs: …`), like every other failure; `--help` shows the usage. `hint` may add a few
 * words to that line.
 */
function usageExit(cmd: Command, hint: (message: string) => string = () => ''): Command {
  return cmd
    .showHelpAfterError(false)
    .configureOutput({
      outputError: (str, write) => {
        const message = str.trimEnd().replace(/^error: /, 'genjobs: ');
        write(`${message}${hint(message)}\n`);
      },
    })
    .exitOverride((err: CommanderError) => {
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
}

/** `run --prompt x`: the model's fields are not options of their own; say how to give one. */
function inputFieldHint(message: string): string {
  const field = /unknown option '--([A-Za-z][\w-]*)'/.exec(message)?.[1];
  return field
    ? ` (a model's input field is given as --input ${field}=VALUE; genjobs models get MODEL lists them)`
    : '';
}

/** A job's input as `run` and `estimate` take it: `--input key=value` (repeatable) or `--input-file`. */
function inputOptions(cmd: Command): Command {
  return cmd
    .option('-i, --input <key=value>', 'an input field (repeatable); key:=json for a JSON value', collect, [])
    .option('--input-file <file>', 'the input as a JSON object (- for stdin)');
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
    inputOptions(
      program
        .command('run')
        .description('submit a job; with --wait or --download, follow it to the end')
        .argument('<model>', 'model slug, e.g. genjobs/reference-video/text-to-video'),
    )
      .option('--wait', 'wait for the job to finish')
      .option('--download <dir>', 'wait, then save the outputs into this directory')
      .option('--idempotency-key <key>', 'default: a new random key (retries never make a second job)')
      .addOption(outputOption())
      .addHelpText('after', exitHelp()),
    inputFieldHint,
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
        if (o.idempotencyKey?.trim() === '')
          throw new UsageError('--idempotency-key is empty: give a key, or leave it out for a random one');
        const c = client();
        if (o.download) await prepareDownloadDir(o.download);
        // An error carries the key, which failed() names when a job may have been made.
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

  usageExit(
    inputOptions(
      program
        .command('estimate')
        .description(
          "what a job would cost, part by part (nothing is submitted or charged; with no --input, the model's defaults)",
        )
        .argument('<model>', 'model slug, e.g. genjobs/reference-video/text-to-video'),
    ).addOption(outputOption()),
    inputFieldHint,
  ).action(
    action(async (model: string, o: Output & { input: string[]; inputFile?: string }) => {
      // No input prices the model's defaults, as the API does.
      const input = await buildInput(o.input, o.inputFile, { allowEmpty: true });
      const estimate = await client().jobs.estimate({ model, input });
      print(o, estimate, () => describeEstimate(estimate));
      return EXIT.ok;
    }),
  );

  const jobs = usageExit(program.command('jobs').description('read, list, cancel and watch jobs (HTTP API)'));
  usageExit(
    jobs
      .command('get')
      .description("a job's record: status, progress, queue position and ETA, outputs, cost")
      .argument('<jobId>')
      .addOption(outputOption()),
  ).action(
    action(async (jobId: string, o: Output) => {
      const job = await client().jobs.get(jobIdOf(jobId));
      print(o, job, () => plain(job));
      return EXIT.ok;
    }),
  );
  usageExit(
    jobs
      .command('list')
      .description("the key's account's jobs, newest first, a page at a time")
      .addOption(
        new Option('--status <status>', 'only jobs in this state').choices([
          'pending',
          'processing',
          'completed',
          'failed',
          'cancelled',
        ]),
      )
      .option('--model <slug>')
      .option('--limit <n>', 'at most this many (1 to 100)', pageSize, 20)
      .option('--cursor <cursor>', 'the nextCursor of the previous page')
      .addOption(outputOption()),
  ).action(
    action(async (o: Output & { status?: string; model?: string; limit: number; cursor?: string }) => {
      const page = await client().jobs.list({
        status: o.status as Job['status'] | undefined,
        model: o.model,
        limit: o.limit,
        cursor: o.cursor,
      });
      if (o.output !== 'json' && page.jobs.length === 0) console.error(o.cursor ? 'no more jobs' : 'no jobs');
      else print(o, page, () => page.jobs.map(listLine).join('\n'));
      // On stderr: stdout holds the rows alone, for a script to read.
      if (o.output !== 'json' && page.nextCursor) console.error(`more: --cursor ${page.nextCursor}`);
      return EXIT.ok;
    }),
  );
  usageExit(
    jobs
      .command('cancel')
      .description('cancel a pending job, with a refund of its whole cost')
      .argument('<jobId>')
      .addOption(outputOption()),
  ).action(
    action(async (jobId: string, o: Output) => {
      const r = await client().jobs.cancel(jobIdOf(jobId));
      print(o, r, () => `${r.jobId} cancelled, refunded ${microCentsText(r.refundedMicroCents)}`);
      return EXIT.ok;
    }),
  );
  usageExit(
    jobs
      .command('watch')
      .description('follow a job to its end')
      .argument('<jobId>')
      .option('--download <dir>', 'save the outputs into this directory')
      .addOption(outputOption())
      .addHelpText('after', exitHelp()),
  ).action(
    action(async (jobId: string, o: Output & { download?: string }) => {
      const id = jobIdOf(jobId);
      const c = client();
      if (o.download) await prepareDownloadDir(o.download);
      return finish(await follow(c, id, o), o);
    }),
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
    models
      .command('list')
      .description('the models, their category and price')
      .option('--category <c>')
      .option('--capability <c>')
      .addOption(outputOption()),
  ).action(
    action(async (o: Output & { category?: string; capability?: string }) => {
      const list = await client().catalog.models({ category: o.category, capability: o.capability });
      print(o, list, () =>
        list.map((m) => `${m.slug.padEnd(48)} ${m.category.padEnd(6)} ${priceText(m.pricing)}`).join('\n'),
      );
      return EXIT.ok;
    }),
  );

  usageExit(
    models
      .command('get')
      .description("a model's price and input fields (what `run --input` takes)")
      .argument('<model>', 'model slug, e.g. genjobs/reference-image/edit-image')
      .addOption(outputOption()),
  ).action(
    action(async (slug: string, o: Output) => {
      const model = await client().catalog.model(slug);
      print(o, model, () => describeModel(model, slug));
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
        throw new UsageError(`cannot read ${file}: ${fileError(err)}`);
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
