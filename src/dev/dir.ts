import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where dev mode keeps its state (control plane data, kubeconfig, api address and key):
 * `$GENJOBS_DEV_DIR`, else `~/.genjobs/dev`. `genjobs dev` writes there; the user and admin
 * commands look there when nothing else says where the service is.
 */
export function devDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GENJOBS_DEV_DIR ?? join(homedir(), '.genjobs', 'dev');
}
