import { type Command, InvalidArgumentError, Option } from 'commander';
import type { AccountAdmin } from '../accounts/admin.ts';
import type { AccountWebhookSecret, WebhookSecrets } from '../accounts/webhook-secret.ts';
import { configSchema } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Kube } from '../k8s/client.ts';
import { statusOf } from '../k8s/errors.ts';
import type { Account, ApiKey } from '../k8s/types.ts';
import { parseDuration, parseLifetime } from './duration.ts';
import { NODE_FOR_KUBERNETES, requireNode } from './node-version.ts';

type Output = { output?: string };

/** Exit codes of the admin commands, as the user commands have them: 2 is a usage mistake. */
const EXIT = { failed: 1, usage: 2 } as const;

/**
 * Runs an admin action; a refusal becomes one line on stderr and an exit code, not a stack
 * trace: the service's own refusals (a bad name, an unknown account) and the apiserver's
 * (its message, e.g. a value past a CRD bound) and no kubeconfig to read exit 2, anything
 * else (no cluster) 1. GENJOBS_DEBUG=1 prints the stack as well.
 */
function run<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const status = statusOf(err);
      // A refusal is the command line's to fix (exit 2); what may work when run again (the
      // apiserver or the controller not answering in time) is a failure (exit 1).
      const refused =
        (err instanceof AppError && !err.retryable) || (status?.code !== undefined && status.code < 500);
      const missing = (err as { code?: string; path?: string }).code === 'ENOENT';
      const message =
        status?.message ??
        (missing
          ? `cannot read ${(err as { path?: string }).path}: no such file (--kubeconfig or $KUBECONFIG)`
          : err instanceof Error
            ? err.message
            : String(err));
      console.error(`genjobs: ${status?.message ? `the apiserver refused it: ${message}` : message}`);
      if (process.env.GENJOBS_DEBUG && err instanceof Error) console.error(err.stack);
      // No kubeconfig to read is the command line's mistake too: --kubeconfig fixes it. (By
      // name: k8s/client.ts loads undici, which this file must not before the Node check.)
      const noConfig = (err as Error).name === 'NoKubeconfigError';
      process.exitCode = refused || missing || noConfig ? EXIT.usage : EXIT.failed;
    }
  };
}

/** An option or argument parser whose refusal commander reports as a usage error. */
export const parsed =
  <T>(parse: (v: string) => T) =>
  (v: string): T => {
    try {
      return parse(v);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };

/**
 * A usage mistake in an admin command (a value a parser refused, a missing argument, an
 * unknown option) is one line on stderr, as its refusals are: not followed by the help the
 * program shows after an error (`genjobs <command> --help` has it). Applied to the command
 * and every subcommand, since commander copies these settings when a subcommand is made.
 */
export function oneLineMistakes(cmd: Command): void {
  cmd.showHelpAfterError(false).configureOutput({
    outputError: (str, write) => write(str.replace(/^error: /, 'genjobs: ')),
  });
  for (const sub of cmd.commands) oneLineMistakes(sub);
}

export const outputOption = () => new Option('-o, --output <format>', 'json for scripts').choices(['json']);

/**
 * The ConfigMap in which the chart tells the admin commands what they cannot see from the
 * resources: the plans it gives the api and the controller (GENJOBS_PLANS) and where the
 * webhook Secrets are kept. One release per namespace, so one name.
 */
export const INSTALL_CONFIGMAP = 'genjobs-install';

interface InstallInfo {
  plans?: string;
  webhookSecretNamespace?: string;
}

/** The install's ConfigMap, or {} where there is none to read (deploy/base, an older chart). */
async function installInfo(kube: Kube): Promise<InstallInfo> {
  const cm = await kube.core
    .readNamespacedConfigMap({ name: INSTALL_CONFIGMAP, namespace: kube.namespace })
    .catch(() => undefined);
  return {
    plans: cm?.data?.plans || undefined,
    webhookSecretNamespace: cm?.data?.webhookSecretNamespace || undefined,
  };
}

/**
 * Refuses a plan the service does not know (an account on it could never run a job): the
 * install's plans, else GENJOBS_PLANS, else the default free, pro, enterprise.
 */
async function checkPlan(kube: Kube, plan: string): Promise<void> {
  const fromInstall = (await installInfo(kube)).plans;
  const source = fromInstall
    ? `the plans of the install in namespace ${kube.namespace}`
    : "GENJOBS_PLANS, as the chart's plans";
  const plans = configSchema.shape.GENJOBS_PLANS.safeParse(fromInstall ?? process.env.GENJOBS_PLANS);
  if (!plans.success)
    throw new AppError('INVALID_INPUT', `${source} are not like free=2,pro=20,enterprise=100`);
  if (!(plan in plans.data))
    throw new AppError(
      'INVALID_INPUT',
      `unknown plan ${JSON.stringify(plan)}: one of ${Object.keys(plans.data).join(', ')} (${source})`,
    );
}

const percent = (v: string) => {
  const n = int(v);
  if (n > 100) throw new Error(`a percentage is 0 to 100: ${v}`);
  return n;
};

/**
 * Warns when the namespace holds no genjobs catalog: accounts and keys made there are seen
 * by no api (the CRDs are cluster-wide, so the apiserver takes them in any namespace). A
 * caller who may not list ConfigMaps (the chart's admin Role) is not warned: that Role
 * exists only in the service's namespace, so its writes elsewhere are refused anyway.
 */
async function warnIfNotInstalled(kube: Kube): Promise<void> {
  const { CATALOG_SELECTOR } = await import('../catalog/watcher.ts');
  const found = await kube.core
    .listNamespacedConfigMap({ namespace: kube.namespace, labelSelector: CATALOG_SELECTOR, limit: 1 })
    .catch(() => undefined);
  if (found && found.items.length === 0) {
    console.error(
      `genjobs: warning: namespace ${kube.namespace} has no genjobs catalog: is the service installed here? (-n NAMESPACE)`,
    );
  }
}

/**
 * The connection of an admin command, and the account admin on it. The Kubernetes client
 * is loaded only when an admin command runs, not for every `genjobs`.
 */
async function connection(cmd: Command): Promise<{ kube: Kube; admin: AccountAdmin }> {
  const g = cmd.optsWithGlobals() as { kubeconfig?: string; namespace?: string };
  const [{ AccountAdmin }, { connect }, { resources }] = await Promise.all([
    import('../accounts/admin.ts'),
    import('../k8s/client.ts'),
    import('../k8s/resources.ts'),
  ]);
  const kube = connect({ kubeconfig: g.kubeconfig, namespace: g.namespace });
  await warnIfNotInstalled(kube);
  return { kube, admin: new AccountAdmin(resources(kube), () => kube.clock.now()) };
}

async function admin(cmd: Command): Promise<AccountAdmin> {
  return (await connection(cmd)).admin;
}

/** The account admin and the webhook secrets of one connection. */
async function secretsAdmin(cmd: Command): Promise<{ admin: AccountAdmin; secrets: WebhookSecrets }> {
  const { secretNamespace } = cmd.optsWithGlobals() as { secretNamespace?: string };
  const [{ kube, admin }, { WebhookSecrets }] = await Promise.all([
    connection(cmd),
    import('../accounts/webhook-secret.ts'),
  ]);
  // The install says where its Secrets are; without it (deploy/base, an older chart), the
  // service's namespace is the default and the chart's usual place is named.
  const namespace = secretNamespace ?? (await installInfo(kube)).webhookSecretNamespace;
  if (!namespace) {
    console.error(
      `genjobs: the webhook Secret is in namespace ${kube.namespace}; a Helm install keeps them in ${kube.namespace}-webhooks (--secret-namespace)`,
    );
  }
  return { admin, secrets: new WebhookSecrets({ kube, namespace }) };
}

/** What a person needs to know beside the secret: on stderr, so `$(…)` captures the secret alone. */
function secretNote(s: AccountWebhookSecret, rotated: boolean): string | undefined {
  if (!s.previous) return undefined;
  const until = s.previousUntil ? ` until ${s.previousUntil}` : '';
  return rotated
    ? `New secret. Webhooks are signed with both it and the previous one${until}; give receivers the new one.`
    : `The previous secret also signs webhooks${until}: ${s.previous}`;
}

/** Where the webhook Secrets are: the chart keeps them in a namespace of their own. */
function secretNamespaceOption(): Option {
  return new Option(
    '--secret-namespace <ns>',
    'namespace of the webhook Secrets (default: the one the install names, else the service namespace)',
  ).env('GENJOBS_WEBHOOK_SECRET_NAMESPACE');
}

/** Prints the table, or with -o json the objects (without the apiserver's managedFields). */
function print(opts: Output, json: unknown, table: () => string): void {
  const bare = (key: string, value: unknown) => (key === 'managedFields' ? undefined : value);
  console.log(opts.output === 'json' ? JSON.stringify(json, bare, 2) : table());
}

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const int = (v: string) => {
  if (!/^\d+$/.test(v)) throw new Error(`not a whole number (0 or more): ${v}`);
  if (!Number.isSafeInteger(Number(v))) throw new Error(`too large: ${v}`);
  return Number(v);
};
const positiveInt = (v: string) => {
  if (!/^\d+$/.test(v) || /^0+$/.test(v)) throw new Error(`not a whole number above 0: ${v}`);
  return int(v);
};

function accountRow(a: Account): string {
  const s = a.status ?? {};
  return [
    a.metadata.name,
    a.spec.plan,
    s.balanceMicroCents ?? 0,
    s.heldMicroCents ?? 0,
    // What the ledger took in (balance + held + spent adds up to it); the spec's figure may
    // be lower (refused: grants only rise) or higher for a moment (not applied yet).
    s.appliedGrantMicroCents ?? 0,
    s.spentMicroCents ?? 0,
  ].join('\t');
}

/** The account's conditions that are not as they should be: a grant refused, a ledger that does not add up. */
function accountTrouble(a: Account): string[] {
  return (a.status?.conditions ?? [])
    .filter((c) => c.status === 'False')
    .map((c) => `${c.type} False (${c.reason}): ${c.message ?? ''}`);
}
const ACCOUNT_HEADER = 'NAME\tPLAN\tBALANCE\tHELD\tGRANTED\tSPENT';
function keyRow(k: ApiKey): string {
  return [
    k.metadata.name,
    k.spec.account,
    k.spec.prefix,
    k.spec.scopes.join(','),
    k.spec.expiresAt ?? '-',
    k.spec.disabled ? 'yes' : 'no',
  ].join('\t');
}
const KEY_HEADER = 'NAME\tACCOUNT\tPREFIX\tSCOPES\tEXPIRES\tDISABLED';

/** `genjobs accounts …` and `genjobs keys …`: administration through the current kubeconfig. */
export function registerAdminCommands(program: Command): void {
  const accounts = requireNode(program.command('accounts'), NODE_FOR_KUBERNETES).description(
    'manage accounts and their credit',
  );
  accounts
    .command('create <name>')
    .description('create an account (its credit and plan)')
    .option('--plan <plan>', "plan (sets the concurrent job limit): one of the install's plans", 'free')
    .option('--grant <microcents>', 'initial credit in micro-cents', parsed(int), 0)
    .option('--segments <list>', 'comma-separated segments (segment-visible models)', list)
    .option('--allowed-models <list>', 'comma-separated private model slugs the account may use', list)
    .option('--discount-percent <n>', 'discount on every job, 0-100', parsed(percent))
    .addOption(outputOption())
    .action(
      run(async (name: string, o, cmd: Command) => {
        const { kube, admin } = await connection(cmd);
        await checkPlan(kube, o.plan);
        const a = await admin.createAccount({
          name,
          plan: o.plan,
          grantMicroCents: o.grant,
          segments: o.segments,
          allowedModels: o.allowedModels,
          discountPercent: o.discountPercent,
        });
        print(
          o,
          a,
          () =>
            `account ${name} created (plan ${a.spec.plan}, granted ${a.spec.grantedMicroCents} micro-cents)`,
        );
      }),
    );
  accounts
    .command('grant')
    .description('add credit (raises the total grant)')
    .argument('<name>', 'the account')
    .argument('<microcents>', 'credit to add, in micro-cents', parsed(positiveInt))
    .addOption(outputOption())
    .action(
      run(async (name: string, amount: number, o, cmd: Command) => {
        const a = await (await admin(cmd)).grant(name, amount);
        print(o, a, () => `account ${name}: total granted now ${a.spec.grantedMicroCents} micro-cents`);
      }),
    );
  accounts
    .command('get <name>')
    .description("an account's plan, balance, credit held, grant and spend")
    .addOption(outputOption())
    .action(
      run(async (name: string, o, cmd: Command) => {
        const a = await (await admin(cmd)).getAccount(name);
        print(o, a, () => [ACCOUNT_HEADER, accountRow(a), ...accountTrouble(a)].join('\n'));
      }),
    );
  accounts
    .command('list')
    .description('every account of the namespace')
    .addOption(outputOption())
    .action(
      run(async (o, cmd: Command) => {
        const all = await (await admin(cmd)).listAccounts();
        print(o, all, () => [ACCOUNT_HEADER, ...all.map(accountRow)].join('\n'));
        const troubled = all.filter((a) => accountTrouble(a).length > 0).map((a) => a.metadata.name);
        if (troubled.length > 0 && o.output !== 'json')
          console.error(`not ready (genjobs accounts get NAME says why): ${troubled.join(', ')}`);
      }),
    );

  accounts
    .command('webhook-secret <name>')
    .description("show the account's webhook signing secret (whsec_…), made on first use")
    .option('--rotate', 'make a new secret; the old one keeps signing during the overlap')
    .addOption(
      new Option(
        '--overlap <duration>',
        'how long the old secret keeps signing after --rotate (0: not at all)',
      )
        .argParser(parsed(parseDuration))
        .default(parseDuration('24h'), '24h'),
    )
    .addOption(secretNamespaceOption())
    .addOption(outputOption())
    .action(
      run(async (name: string, o, cmd: Command) => {
        const { admin, secrets } = await secretsAdmin(cmd);
        const account = await admin.getAccount(name);
        const owner = { name, uid: account.metadata.uid };
        const s = o.rotate ? await secrets.rotate(name, o.overlap, owner) : await secrets.ensure(name, owner);
        print(o, s, () => s.current);
        const note = o.output === 'json' ? undefined : secretNote(s, Boolean(o.rotate));
        if (note) console.error(note);
      }),
    );

  accounts
    .command('delete <name>')
    .description(
      'delete an account and erase its data: keys, webhook secret, jobs (running ones stop, uncharged), uploads, their files and its job history',
    )
    .option(
      '--keep-history',
      'keep its archived jobs and their files until the history retention deletes them',
    )
    .addOption(
      new Option('--timeout <duration>', 'how long to wait for the controller to erase it')
        .argParser(parsed(parseDuration))
        .default(parseDuration('10m'), '10m'),
    )
    .addOption(secretNamespaceOption())
    .addOption(outputOption())
    .action(
      run(async (name: string, o, cmd: Command) => {
        const { secretNamespace } = cmd.optsWithGlobals() as { secretNamespace?: string };
        const [{ kube, admin }, { WebhookSecrets }, { isForbidden }] = await Promise.all([
          connection(cmd),
          import('../accounts/webhook-secret.ts'),
          import('../k8s/errors.ts'),
        ]);
        const mode = o.keepHistory ? 'keep-history' : 'all';
        // Where its signing Secret may be: the namespace given, else the service's (dev mode,
        // deploy/base) and the chart's own for them (the install's, else the default name),
        // which this Role may not reach (no Secret).
        const chartSecrets = (await installInfo(kube)).webhookSecretNamespace ?? `${kube.namespace}-webhooks`;
        const secretNamespaces = secretNamespace
          ? [secretNamespace]
          : [...new Set([kube.namespace, chartSecrets])];
        const secretsDeletedIn: string[] = [];
        /** Namespaces looked in by guess that these credentials may not touch. */
        const unreadable: string[] = [];
        const interrupted = () => {
          console.error(
            `genjobs: interrupted; the controller goes on erasing account ${name}: run the command again to finish`,
          );
          process.exit(130);
        };
        process.once('SIGINT', interrupted);
        const { keysRevoked, alreadyGone } = await admin
          .deleteAccount(name, mode, {
            timeoutMs: o.timeout,
            progress: (m) => console.error(m),
            // Once its jobs are gone: none is delivered, so the controller makes no new one.
            beforeDelete: async () => {
              for (const namespace of secretNamespaces) {
                const secrets = new WebhookSecrets({ kube, namespace });
                const deleted = await secrets.delete(name).catch((err: unknown) => {
                  if (secretNamespace !== undefined || !isForbidden(err)) throw err;
                  unreadable.push(namespace);
                  return false;
                });
                if (deleted) secretsDeletedIn.push(namespace);
              }
            },
          })
          .finally(() => process.off('SIGINT', interrupted));
        const historyHint = `its archived jobs and uploads, with their files, go with \`genjobs history erase --account ${name} --created-before now\` run where the api runs (it needs the archive and the file store; nothing to erase says so)`;
        const left = alreadyGone && alreadyGone.jobsLeft + alreadyGone.uploadsLeft > 0;
        if (left)
          console.error(
            `genjobs: ${alreadyGone.jobsLeft} jobs and ${alreadyGone.uploadsLeft} uploads of account ${name} are still in the cluster (deleting an Account by hand leaves them): \`kubectl -n ${kube.namespace} delete gj,upl -l genjobs.io/account=${name}\` removes them with their Pods and the files of those not archived yet; ${historyHint}`,
          );
        else if (alreadyGone && keysRevoked === 0 && secretsDeletedIn.length === 0)
          throw new AppError(
            'NOT_FOUND',
            `account ${name} not found: nothing of it is left in the cluster; ${historyHint}`,
          );
        const result = {
          account: name,
          keysRevoked,
          webhookSecretDeleted: secretsDeletedIn.length > 0,
          webhookSecretNamespaces: secretsDeletedIn,
          history: alreadyGone ? 'unknown' : mode === 'all' ? 'erased' : 'kept',
          ...(alreadyGone ? alreadyGone : {}),
        };
        const keysText = `${keysRevoked} key${keysRevoked === 1 ? '' : 's'} revoked`;
        const secretText = secretsDeletedIn.length
          ? `its webhook secret deleted (${secretsDeletedIn.join(', ')})`
          : `no webhook secret found (in ${secretNamespaces.filter((n) => !unreadable.includes(n)).join(', ')}${unreadable.length ? `; not allowed to look in ${unreadable.join(', ')}: give --secret-namespace` : ''})`;
        print(o, result, () =>
          alreadyGone
            ? `account ${name} was already deleted; removed what was left: ${keysText}, ${secretText}${left ? ' (jobs and uploads left: see above)' : ''}`
            : `account ${name} deleted: ${keysText}, ${secretText}, its jobs, uploads and files erased, ${mode === 'all' ? 'its history erased' : 'its history kept until its retention'}`,
        );
        // Done, but not all of it: what is left needs kubectl.
        if (left) process.exitCode = 1;
      }),
    );

  const keys = requireNode(program.command('keys'), NODE_FOR_KUBERNETES).description('manage API keys');
  keys
    .command('create')
    .description('make an API key of an account (printed once)')
    .requiredOption('--account <name>', 'account the key acts for')
    .requiredOption('--scopes <list>', 'comma-separated: submit_job, check_status, list_models', list)
    .option('--expires-in <duration>', 'lifetime, e.g. 30d or 12h', parsed(parseLifetime))
    .addOption(outputOption())
    .action(
      run(async (o, cmd: Command) => {
        const { key, apiKey } = await (await admin(cmd)).createKey(o.account, o.scopes, o.expiresIn);
        print(
          o,
          {
            key,
            name: apiKey.metadata.name,
            prefix: apiKey.spec.prefix,
            scopes: apiKey.spec.scopes,
            expiresAt: apiKey.spec.expiresAt ?? null,
          },
          () => key,
        );
        // On stderr, so KEY=$(genjobs keys create …) holds the key alone.
        if (o.output !== 'json') {
          console.error(
            `This is the only time the key is shown; it is stored hashed as ApiKey ${apiKey.metadata.name}.`,
          );
        }
      }),
    );
  keys
    .command('list')
    .description('API keys (their prefixes, never the keys)')
    .option('--account <name>', "only this account's keys")
    .addOption(outputOption())
    .action(
      run(async (o, cmd: Command) => {
        const a = await admin(cmd);
        const all = await a.listKeys(o.account);
        // No keys of an account that does not exist is a typo, not an empty list.
        if (o.account && all.length === 0) await a.getAccount(o.account);
        print(o, all, () => [KEY_HEADER, ...all.map(keyRow)].join('\n'));
      }),
    );
  keys
    .command('revoke <key>')
    .description(
      'revoke an API key, given as its name (key-…), the key itself (a leaked one) or the prefix keys list shows: it is deleted and refused at once (revoking it again says it is not found)',
    )
    .addOption(outputOption())
    .action(
      run(async (given: string, o, cmd: Command) => {
        const name = await (await admin(cmd)).revokeKey(given);
        print(o, { revoked: name }, () => `API key ${name} revoked`);
      }),
    );
  oneLineMistakes(accounts);
  oneLineMistakes(keys);
}
