import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { registerAdminCommands } from './admin/cli.ts';
import { registerHistoryCommands } from './admin/history.ts';
import { NODE_FOR_SERVICE, requireNode } from './admin/node-version.ts';
import { registerUserCommands } from './cli-user/commands.ts';
import type { Config } from './config.ts';
import { ConfigError, kubeDeadlines, loadConfig } from './config.ts';
import { AppError } from './errors.ts';
import type { Kube } from './k8s/client.ts';
import { createLogger, type Logger } from './log.ts';

/**
 * The `genjobs` command: one binary, one subcommand per entrypoint (api, controller,
 * worker, dev), the admin commands (Kubernetes) and the user commands (HTTP API). Each
 * subcommand loads only its own modules, so a worker Pod does not pay for the api's start-up.
 */
const program = new Command('genjobs')
  .description('Asynchronous image and video generation jobs on Kubernetes')
  // The package's version (package.json ships beside src/ in the image too).
  .version(
    (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
      .version,
  )
  .showHelpAfterError()
  // A usage mistake (a missing argument, an unknown option, a value a parser refused) exits
  // 2 in every subcommand, which inherit this; help exits 0.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .addOption(
    new Option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config or in-cluster)'),
  )
  .addOption(
    new Option('-n, --namespace <ns>', "namespace of the service (default: the context's)").env(
      'GENJOBS_NAMESPACE',
    ),
  );

/** Runs a long-lived part until SIGTERM or SIGINT, then stops it gracefully. */
async function serve(
  name: string,
  cmd: Command,
  start: (deps: { config: Config; kube: Kube; log: Logger }) => Promise<{ stop(): Promise<void> }>,
) {
  const config = loadConfig();
  const log = createLogger(name, config.LOG_LEVEL);
  const g = cmd.optsWithGlobals() as GlobalOptions;
  const { connect } = await import('./k8s/client.ts');
  const kube = connect({
    kubeconfig: g.kubeconfig,
    namespace: g.namespace ?? config.GENJOBS_NAMESPACE,
    deadlines: kubeDeadlines(config),
  });
  log.info({ namespace: kube.namespace }, `starting ${name}`);
  const running = await start({ config, kube, log });
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log.info(`stopping ${name}`);
  await running.stop();
}

// The service's entrypoints run on the project's Node; the user commands on Node 20 and later.
requireNode(program.command('api'), NODE_FOR_SERVICE)
  .description('serve the HTTP API (Express) from informer caches')
  .action(async (_o, cmd: Command) => {
    const { startApi } = await import('./api/main.ts');
    await serve('api', cmd, startApi);
  });

requireNode(program.command('controller'), NODE_FOR_SERVICE)
  .description('run the reconcilers: jobs, Pods, accounts, uploads, webhooks (leader-elected)')
  .action(async (_o, cmd: Command) => {
    const { startController } = await import('./controller/main.ts');
    await serve('controller', cmd, startController);
  });

requireNode(program.command('dev'), NODE_FOR_SERVICE)
  .description('run the whole service locally: control plane, api, controller and node agent')
  .action(async () => {
    const { devMain } = await import('./dev/main.ts');
    await devMain();
  });

requireNode(program.command('worker'), NODE_FOR_SERVICE)
  .description('run one job inside a worker Pod and exit (the controller starts it)')
  .action(async () => {
    const { workerEntrypoint } = await import('./worker/entrypoint.ts');
    process.exitCode = await workerEntrypoint(process.env);
  });

registerAdminCommands(program);
registerHistoryCommands(program);
// For API users, over HTTP (GENJOBS_URL, GENJOBS_API_KEY): run, jobs, models, upload.
registerUserCommands(program);

/** The errors of a file system that refuses a write, whoever is at fault. */
const FILE_SYSTEM_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO']);

export type GlobalOptions = { kubeconfig?: string; namespace?: string };

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError || err instanceof AppError) {
    console.error(`genjobs: ${err.message}`);
    process.exit(2);
  }
  // A disk that is full, read-only or refused (dev mode's folder, TMPDIR): its message names
  // the file; a stack trace would add nothing an operator can act on.
  const code = (err as NodeJS.ErrnoException).code;
  if (code && FILE_SYSTEM_FAULTS.has(code)) {
    console.error(
      `genjobs: ${(err as Error).message}${code === 'ENOSPC' || code === 'EDQUOT' ? ' (free some space there and start again)' : ''}`,
    );
    process.exit(1);
  }
  throw err;
}
