import type { Command } from 'commander';
import { ConfigError } from '../config.ts';

/**
 * The oldest Node the commands that speak to Kubernetes run on: undici's (`engines` in its
 * package.json), the HTTP client under `@kubernetes/client-node` and `src/k8s`. Older ones
 * crash loading it (zstd), before any of our code could say why.
 */
export const NODE_FOR_KUBERNETES = '22.19.0';

/** The oldest Node the service's own entrypoints run on: the project's (`engines`), the image's. */
export const NODE_FOR_SERVICE = '24.0.0';

/** Whether version `have` (`20.20.2`, no `v`) is older than `need`. */
export function olderThan(have: string, need: string): boolean {
  const a = have.split('.').map(Number);
  const b = need.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * Makes `cmd` (and its subcommands) check the Node version before their action loads
 * anything: on an older one a ConfigError saying which Node it needs (one line, exit 2).
 */
export function requireNode(cmd: Command, need: string, have = process.versions.node): Command {
  return cmd.hook('preAction', () => {
    if (olderThan(have, need))
      throw new ConfigError(`\`genjobs ${cmd.name()}\` needs Node ${need} or newer; this is Node ${have}`);
  });
}
