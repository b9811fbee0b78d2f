import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

/**
 * A connection to one namespace of one cluster: the typed API groups the service uses and
 * the namespace it works in. Made once per process in the composition root and passed down.
 */
export interface Kube {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
}

export interface ConnectOptions {
  /** Path of a kubeconfig file; without it, in-cluster config when in a Pod, else the default. */
  kubeconfig?: string;
  /** Namespace to work in; default: the kubeconfig context's, the Pod's, or `default`. */
  namespace?: string;
}

export function loadKubeConfig(kubeconfig?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  return kc;
}

export function connect(options: ConnectOptions = {}): Kube {
  return fromKubeConfig(loadKubeConfig(options.kubeconfig), options.namespace);
}

export function fromKubeConfig(kc: KubeConfig, namespace?: string): Kube {
  const ns = namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return {
    kc,
    namespace: ns,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    coordination: kc.makeApiClient(CoordinationV1Api),
  };
}

/** Request options that make a patch a JSON merge patch (client-node defaults to JSON Patch). */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
