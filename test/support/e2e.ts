import { randomBytes } from 'node:crypto';
import { AccountAdmin, type NewAccount } from '../../src/accounts/admin.ts';
import { fromKubeConfig, loadKubeConfig } from '../../src/k8s/client.ts';
import { resources } from '../../src/k8s/resources.ts';
import type { Scope } from '../../src/k8s/types.ts';
import { kubeconfigPath } from './cluster.ts';
import { checkedFetch, type TestResponse, type TestService } from './service.ts';
import { startTestStack, type TestStack } from './stack.ts';

/** Set when the suite targets a deployed service (scripts/kind-e2e.sh), not a local stack. */
export const REMOTE_URL = process.env.GENJOBS_E2E_BASE_URL;

/**
 * What an end-to-end test needs: the service's URL, accounts and keys, and the cluster it
 * runs in. Locally it is a whole stack on a fresh namespace (`local` gives its parts, for
 * tests that restart them); against a deployment (GENJOBS_E2E_BASE_URL, KUBECONFIG,
 * GENJOBS_E2E_NAMESPACE) it is that service, and account names get a suffix of their own
 * since every test file shares its namespace.
 */
export interface E2e extends Pick<TestService, 'kube' | 'r' | 'admin' | 'account' | 'call'> {
  url: string;
  /** The real name of an account the test named `name`. */
  name(name: string): string;
  local?: TestStack;
  stop(): Promise<void>;
}

export async function startE2e(prefix: string, options: { slots?: number } = {}): Promise<E2e> {
  if (!REMOTE_URL) {
    const local = await startTestStack(prefix, options);
    return { ...local, url: local.api.url, name: (n) => n, local, stop: () => local.stop() };
  }
  const suffix = randomBytes(3).toString('hex');
  const name = (n: string) => `${n}-${suffix}`;
  const kube = fromKubeConfig(
    loadKubeConfig(kubeconfigPath()),
    process.env.GENJOBS_E2E_NAMESPACE ?? 'genjobs',
  );
  const r = resources(kube);
  const admin = new AccountAdmin(r);
  return {
    kube,
    r,
    admin,
    url: REMOTE_URL,
    name,
    async account(
      a: Partial<NewAccount> & { name: string },
      scopes: Scope[] = ['submit_job', 'check_status', 'list_models'],
    ) {
      await admin.createAccount({ plan: 'pro', grantMicroCents: 100_000_000, ...a, name: name(a.name) });
      return (await admin.createKey(name(a.name), scopes)).key;
    },
    call(path: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<TestResponse> {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set('authorization', `Bearer ${key}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return checkedFetch(`${REMOTE_URL}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    stop: async () => {},
  };
}
