import { Command, Option } from 'commander';
import { registerAdminCommands } from './admin/cli.ts';
import { ConfigError } from './config.ts';
import { AppError } from './errors.ts';

/**
 * The `genjobs` command: one binary, one subcommand per entrypoint (api, controller,
 * worker, dev) and the admin commands. Each subcommand loads only its own modules, so a
 * worker Pod does not pay for the api's start-up.
 */
const program = new Command('genjobs')
  .description('Asynchronous image and video generation jobs on Kubernetes')
  .showHelpAfterError()
  .addOption(
    new Option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config or in-cluster)'),
  )
  .addOption(
    new Option('-n, --namespace <ns>', "namespace of the service (default: the context's)").env(
      'GENJOBS_NAMESPACE',
    ),
  );

program
  .command('dev')
  .description('run the whole service locally: control plane, api, controller and node agent')
  .action(async () => {
    const { devMain } = await import('./dev/main.ts');
    await devMain();
  });

program
  .command('worker')
  .description('run one job inside a worker Pod and exit (the controller starts it)')
  .action(async () => {
    const { workerEntrypoint } = await import('./worker/entrypoint.ts');
    process.exitCode = await workerEntrypoint(process.env);
  });

registerAdminCommands(program);

export type GlobalOptions = { kubeconfig?: string; namespace?: string };

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError || err instanceof AppError) {
    console.error(`genjobs: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
