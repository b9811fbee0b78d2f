import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { ensureNamespace } from '../../src/k8s/crds.ts';

/** Path of the admin kubeconfig of the run's control plane. */
export function kubeconfigPath(): string {
  return inject('kubeconfig');
}

/** A connection to a fresh namespace of the run's control plane, named after the test file. */
export async function testNamespace(prefix: string): Promise<Kube> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63);
  const kube = fromKubeConfig(loadKubeConfig(kubeconfigPath()), name);
  await ensureNamespace(kube, name);
  return kube;
}

/** Polls until the check returns a value other than undefined/false, or fails after the timeout. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what} not reached within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
