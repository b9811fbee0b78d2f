/**
 * Entrypoint of one service part the benchmark runs in its own process: `api`,
 * `controller`, `agent` (the dev node agent) or `forwarder` (forwarder.ts). Started by procs.ts with `--expose-gc` and
 * an IPC channel, so the parent can ask for heap figures after a full collection, and so
 * the part stops by itself when the parent goes away (even killed), leaving nothing behind.
 *
 * Environment: BENCH_KUBECONFIG and BENCH_NAMESPACE (where to connect), BENCH_SLOTS and
 * BENCH_NODE (agent), and the usual GENJOBS_* settings (api, controller).
 */
import { startApi } from '../../src/api/main.ts';
import { loadConfig } from '../../src/config.ts';
import { startController } from '../../src/controller/main.ts';
import { genjobsCommandMap, NodeAgent } from '../../src/dev/nodeagent.ts';
import { fromKubeConfig, loadKubeConfig } from '../../src/k8s/client.ts';
import { createLogger } from '../../src/log.ts';
import { startForwarder } from './forwarder.ts';
import type { ChildMemory, ParentMessage } from './protocol.ts';

const role = process.argv[2];
const env = process.env;
const kube = fromKubeConfig(loadKubeConfig(env.BENCH_KUBECONFIG), env.BENCH_NAMESPACE);
const log = createLogger(role ?? 'bench-child', env.LOG_LEVEL ?? 'info');

async function start(): Promise<{ url: string; stop(): Promise<void> }> {
  switch (role) {
    case 'api':
      return startApi({ config: loadConfig(env), kube, log });
    case 'controller':
      return startController({ config: loadConfig(env), kube, log });
    case 'agent': {
      const agent = new NodeAgent(kube, {
        log,
        nodeName: env.BENCH_NODE ?? `bench-${kube.namespace}`,
        slots: Number(env.BENCH_SLOTS ?? 64),
        commandMap: genjobsCommandMap(),
        heartbeatIntervalMs: 10_000,
      });
      await agent.start();
      return { url: '', stop: () => agent.stop() };
    }
    case 'forwarder':
      return startForwarder(kube, env.HOST ?? '127.0.0.1');
    default:
      throw new Error(`unknown role ${role}: api, controller, agent or forwarder`);
  }
}

function memory(): ChildMemory {
  // Two passes: the first may only promote what the second then frees.
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    gc: typeof globalThis.gc === 'function',
  };
}

let running: { url: string; stop(): Promise<void> } | undefined;
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    const timer = setTimeout(() => process.exit(code || 1), 15_000);
    timer.unref();
    await running?.stop().catch((err) => log.warn({ err: String(err) }, 'stop failed'));
  }
  process.exit(code);
}

process.on('disconnect', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));
process.on('message', (msg: ParentMessage) => {
  if (msg.type === 'memory') process.send?.({ type: 'memory', id: msg.id, memory: memory() });
  if (msg.type === 'stop') void stop(0);
});

try {
  running = await start();
  process.send?.({ type: 'ready', url: running.url });
} catch (err) {
  process.send?.({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  log.error({ err: String(err) }, 'start failed');
  process.exit(1);
}
