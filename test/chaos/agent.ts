/**
 * The crash suite's node agent as a process of its own, so the suite can kill it: the dev
 * node agent on the suite's namespace, its log lines (one per container start) on stdout.
 */
import { genjobsCommandMap, NodeAgent } from '../../src/dev/nodeagent.ts';
import { fromKubeConfig, loadKubeConfig } from '../../src/k8s/client.ts';
import { createLogger } from '../../src/log.ts';
import { NAMESPACE } from './stack.ts';

const kube = fromKubeConfig(loadKubeConfig(process.env.KUBECONFIG), NAMESPACE);
const agent = new NodeAgent(kube, {
  log: createLogger('node-agent'),
  commandMap: genjobsCommandMap(),
  logDir: process.env.CHAOS_POD_LOGS,
});
await agent.start();
await new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
});
await agent.stop();
