import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { devDir } from '../dev/dir.ts';
import { ClusterClock } from './clock.ts';
import { boundedConfiguration, DEFAULT_DEADLINES, type Deadlines } from './deadline.ts';
import { ApiserverHealth } from './health.ts';
import { KubeHttp } from './http.ts';

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
  /** The lean client of the hot paths (custom resources, worker Pods): see http.ts. */
  readonly http: KubeHttp;
  /** Whether the apiserver answered this connection's latest call (readiness). */
  readonly health: ApiserverHealth;
  /** The apiserver's clock as read from its answers (see clock.ts): the service's time. */
  readonly clock: ClusterClock;
}

export interface ConnectOptions {
  /** Path of a kubeconfig file; without it, in-cluster config when in a Pod, else the default. */
  kubeconfig?: string;
  /** Namespace to work in; default: the kubeconfig context's, the Pod's, or `default`. */
  namespace?: string;
  /** How long each apiserver call may take; default {@link DEFAULT_DEADLINES}. */
  deadlines?: Deadlines;
}

export function loadKubeConfig(kubeconfig?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  // With no kubeconfig and no in-cluster account, client-node makes up http://localhost:8080,
  // which it then refuses to talk to. With nothing else to go by, dev mode's control plane is
  // the one cluster there is (as the user commands find dev mode's api); else say what is missing.
  if (!kubeconfig && kc.getCurrentCluster()?.server === 'http://localhost:8080' && kc.clusters.length === 1) {
    const dev = join(devDir(), 'kubeconfig');
    if (!existsSync(dev)) throw new NoKubeconfigError(dev);
    kc.loadFromFile(dev);
  }
  return kc;
}

/** No kubeconfig anywhere, no dev mode's, and not in a cluster: nothing to connect with. */
export class NoKubeconfigError extends Error {
  constructor(devKubeconfig: string) {
    super(
      `no kubeconfig found ($KUBECONFIG, ~/.kube/config, dev mode's ${devKubeconfig}) and not running in a cluster: pass --kubeconfig`,
    );
    this.name = 'NoKubeconfigError';
  }
}

export function connect(options: ConnectOptions = {}): Kube {
  return fromKubeConfig(loadKubeConfig(options.kubeconfig), options.namespace, options.deadlines);
}

/**
 * Makes every request of this KubeConfig share one undici Agent. client-node 2.0.1 builds
 * a new Agent per request (applySecurityAuthentication → createDispatcher), so each call
 * opened a new TLS connection to the apiserver, paying a handshake on both sides. The
 * kubeconfig's TLS settings are the same for every request of one KubeConfig, so one
 * Agent (a pool of kept-alive connections) serves them all.
 */
function shareOneAgent(kc: KubeConfig): void {
  const target = kc as unknown as { createDispatcher?: (...args: unknown[]) => unknown; agentShared?: true };
  if (target.agentShared || typeof target.createDispatcher !== 'function') return;
  const create = target.createDispatcher.bind(kc);
  let agent: unknown;
  target.createDispatcher = (...args: unknown[]) => {
    agent ??= create(...args);
    return agent;
  };
  target.agentShared = true;
}

/**
 * A connection from a KubeConfig. Every call of its API clients has a deadline (see
 * {@link boundedConfiguration}) and reports to {@link Kube.health}.
 */
/**
 * A connection to the apiserver. `localNow` is this process's clock (tests give a skewed
 * one); the connection's `clock` reads the apiserver's from its answers.
 */
export function fromKubeConfig(
  kc: KubeConfig,
  namespace?: string,
  deadlines = DEFAULT_DEADLINES,
  localNow: () => number = Date.now,
): Kube {
  shareOneAgent(kc);
  const ns = namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  const health = new ApiserverHealth();
  const config = boundedConfiguration(kc, deadlines, health);
  const clock = new ClusterClock(localNow);
  return {
    kc,
    namespace: ns,
    core: new CoreV1Api(config),
    custom: new CustomObjectsApi(config),
    coordination: new CoordinationV1Api(config),
    http: new KubeHttp(kc, deadlines, health, clock),
    health,
    clock,
  };
}

/** Request options that make a patch a JSON merge patch (client-node defaults to JSON Patch). */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
