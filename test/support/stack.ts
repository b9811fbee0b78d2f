import { loadConfig } from '../../src/config.ts';
import { type RunningController, startController } from '../../src/controller/main.ts';
import { genjobsCommandMap, NodeAgent } from '../../src/dev/nodeagent.ts';
import { type Kube, MERGE_PATCH } from '../../src/k8s/client.ts';
import { createLogger, type Logger, silentLogger } from '../../src/log.ts';
import { startTestApi, type TestService } from './service.ts';

export interface TestStack extends TestService {
  controller: RunningController;
  agent: NodeAgent;
  /** Starts another controller on the same namespace (restarts, two replicas). */
  startController(env?: NodeJS.ProcessEnv, logger?: Logger): Promise<RunningController>;
}

const log = (name: string) => (process.env.GENJOBS_TEST_LOGS ? createLogger(name, 'debug') : silentLogger());

/**
 * The whole service on a fresh namespace: the api, a controller, and a node agent that
 * runs worker Pods as local `genjobs worker` processes (real ffmpeg, real files).
 */
export async function startTestStack(
  prefix: string,
  options: {
    slots?: number;
    env?: NodeJS.ProcessEnv;
    logger?: Logger;
    /** Identities the api and the controller run as (default: the admin). */
    apiIdentity?: (admin: Kube) => Promise<Kube>;
    controllerIdentity?: (admin: Kube) => Promise<Kube>;
  } = {},
): Promise<TestStack> {
  const svc = await startTestApi(prefix, options.env, options.logger, options.apiIdentity);
  const controllerKube = options.controllerIdentity ? await options.controllerIdentity(svc.kube) : svc.kube;
  // The apiserver's Pod Security admission refuses any worker Pod that breaks the
  // "restricted" profile, so every job of every stack test checks the Pod spec for real.
  await svc.kube.core.patchNamespace(
    {
      name: svc.kube.namespace,
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
    },
    MERGE_PATCH,
  );
  const controllerEnv = (env: NodeJS.ProcessEnv = {}) =>
    loadConfig({
      HOST: '127.0.0.1',
      GENJOBS_CONTROLLER_PORT: '0',
      GENJOBS_PUBLIC_URL: svc.config.GENJOBS_PUBLIC_URL,
      GENJOBS_BLOB_DIR: svc.config.GENJOBS_BLOB_DIR,
      GENJOBS_BLOB_SECRET: svc.config.GENJOBS_BLOB_SECRET,
      GENJOBS_LEADER_ELECTION: 'false',
      GENJOBS_RETRY_BASE: '200ms',
      // Leases close 2 s after their term rather than 90 s: tests reach a quiet ledger soon.
      GENJOBS_LEASE_GRACE: '2s',
      ...options.env,
      ...env,
    });
  const start = (env?: NodeJS.ProcessEnv, logger?: Logger) =>
    startController({
      config: controllerEnv(env),
      kube: controllerKube,
      log: logger ?? options.logger ?? log('controller'),
    });
  const controller = await start();
  const agent = new NodeAgent(svc.kube, {
    log: log('agent'),
    nodeName: `node-${svc.kube.namespace}`,
    slots: options.slots ?? 2,
    commandMap: genjobsCommandMap(),
    heartbeatIntervalMs: 10_000,
  });
  await agent.start();
  const stack: TestStack = {
    ...svc,
    controller,
    agent,
    startController: start,
    async stop() {
      await agent.stop();
      await stack.controller.stop().catch(() => {});
      await svc.stop();
    },
  };
  return stack;
}
