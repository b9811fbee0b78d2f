import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';

/**
 * A connection whose requests share one undici Agent, so they reuse kept-alive TLS
 * connections. @kubernetes/client-node 2.0.1 builds a new Agent for every request
 * (KubeConfig.applySecurityAuthentication → createDispatcher), which costs a TLS handshake
 * on both sides per request; the service runs with that behaviour today, and the `raw`
 * figures measure it as the service sees it. This connection measures what the apiserver
 * itself sustains, and fills caches quickly for the memory scenario.
 */
export function pooledKube(kubeconfig: string, namespace: string): Kube {
  const kc = loadKubeConfig(kubeconfig);
  const target = kc as unknown as { createDispatcher: (...args: unknown[]) => unknown };
  const create = target.createDispatcher.bind(kc);
  let shared: unknown;
  target.createDispatcher = (...args: unknown[]) => {
    shared ??= create(...args);
    return shared;
  };
  return fromKubeConfig(kc, namespace);
}
