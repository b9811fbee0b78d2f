import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kube } from '../k8s/client.ts';
import { apiMessage, isNotFound } from '../k8s/errors.ts';
import type { Informer } from '../k8s/informer.ts';
import { heartbeatNode, type NodeOptions, registerNode } from '../k8s/nodes.ts';
import { isPodFinished, type Pod, podInformer } from '../k8s/pods.ts';
import { type HandlerResult, WorkQueue } from '../k8s/workqueue.ts';
import type { Logger } from '../log.ts';
import { REPO_ROOT } from './controlplane.ts';
import { Kubelet } from './nodeagent/kubelet.ts';
import { Scheduler } from './nodeagent/schedule.ts';

export const DEFAULT_NODE_NAME = 'genjobs-dev-node';

export interface NodeAgentOptions {
  log: Logger;
  /** Namespace whose Pods the agent schedules and runs; default: the connection's. */
  namespace?: string;
  /** Only Pods matching this label selector are seen at all. */
  labelSelector?: string;
  nodeName?: string;
  /** Pods the node runs at once; default `GENJOBS_DEV_SLOTS`, else 2. */
  slots?: number;
  /**
   * Executables for a container command's first word, e.g.
   * `{ genjobs: [process.execPath, '<repo>/src/cli.ts'] }`; unmapped commands run as they are.
   */
  commandMap?: Readonly<Record<string, readonly string[]>>;
  /** Where each Pod's output goes (`<namespace>_<pod>_<uid>.log`); default a temp dir. */
  logDir?: string;
  /** Where Pods' volumes and termination message files live while they run; default a temp dir. */
  workDir?: string;
  /** The environment every container starts from; default PATH, HOME, locale and TMPDIR of this process. */
  baseEnv?: Readonly<Record<string, string>>;
  heartbeatIntervalMs?: number;
  /** Wait before retrying a container whose Secret or ConfigMap is missing. */
  configRetryMs?: number;
}

const SCHEDULE = ':schedule';
const HEARTBEAT = ':heartbeat';

/** The container command map that runs `genjobs …` from this checkout. */
export function genjobsCommandMap(): Record<string, string[]> {
  return { genjobs: [process.execPath, join(REPO_ROOT, 'src', 'cli.ts')] };
}

/** The number of Pod slots from `GENJOBS_DEV_SLOTS` (default 2). */
export function slotsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GENJOBS_DEV_SLOTS;
  if (raw === undefined || raw === '') return 2;
  const slots = Number(raw);
  if (!Number.isInteger(slots) || slots < 0) {
    throw new Error(`GENJOBS_DEV_SLOTS must be a whole number of Pods, not "${raw}"`);
  }
  return slots;
}

/**
 * A stand-in for a scheduler and a kubelet on the local control plane, for dev mode and
 * tests only: it registers a fake Node with room for `slots` Pods, binds waiting Pods to it
 * oldest first, runs each bound Pod's container as a local process, and writes Pod status
 * as a kubelet would. One work queue drives it: a key per Pod, one for the scheduling pass
 * and one for the node heartbeat.
 *
 * What a real node does and this one does not: Pods are never restarted (every
 * restartPolicy acts as Never), only the Pod count limits admission (resources, node
 * selectors and tolerations are not looked at), and there is no isolation: a container is
 * a process group on this machine, with the host's network and filesystem.
 */
export class NodeAgent {
  readonly nodeName: string;
  readonly slots: number;
  private readonly kube: Kube;
  private readonly opts: NodeAgentOptions;
  private readonly log: Logger;
  private readonly queue: WorkQueue;
  private pods?: Informer<Pod>;
  private kubelet?: Kubelet;
  private scheduler?: Scheduler;
  private readonly node: NodeOptions;
  private since = new Date();
  private dirs = { logDir: '', workDir: '' };
  /** The temp dir made for logs or Pods' files not given in the options; removed on stop. */
  private tempBase = '';

  constructor(kube: Kube, options: NodeAgentOptions) {
    this.kube = options.namespace ? { ...kube, namespace: options.namespace } : kube;
    this.opts = options;
    this.nodeName = options.nodeName ?? DEFAULT_NODE_NAME;
    this.slots = options.slots ?? slotsFromEnv();
    this.log = options.log.child({ node: this.nodeName, namespace: this.kube.namespace });
    this.node = { name: this.nodeName, pods: this.slots, labels: { 'genjobs.io/dev-node': 'true' } };
    this.queue = new WorkQueue({
      handler: (key) => this.handle(key),
      concurrency: 8,
      baseDelayMs: 100,
      maxDelayMs: 10_000,
      // Not `key`, which the logger redacts (API keys): the Pod's namespace/name is worth seeing.
      onError: (pod, err) => this.log.warn({ pod, err: apiMessage(err) }, 'node agent reconcile failed'),
    });
  }

  /** The directory of the Pods' output logs (known once started). */
  get logDir(): string {
    return this.dirs.logDir;
  }

  async start(): Promise<void> {
    this.dirs = await this.makeDirs();
    await registerNode(this.kube, this.node);
    this.since = new Date();
    const pods = podInformer(this.kube, { labelSelector: this.opts.labelSelector, log: this.log });
    this.pods = pods;
    this.kubelet = new Kubelet({
      kube: this.kube,
      log: this.log,
      pods,
      nodeName: this.nodeName,
      commandMap: this.opts.commandMap ?? {},
      baseEnv: this.opts.baseEnv ?? workerBaseEnv(),
      ...this.dirs,
      configRetryMs: this.opts.configRetryMs ?? 5_000,
      requeue: (name) => this.queue.add(name),
      freed: () => this.queue.add(SCHEDULE),
      now: Date.now,
    });
    const kubelet = this.kubelet;
    this.scheduler = new Scheduler({
      kube: this.kube,
      log: this.log,
      pods,
      nodeName: this.nodeName,
      slots: this.slots,
      finished: (pod) => kubelet.hasFinished(pod),
    });
    pods.on((_type, pod) => {
      this.queue.add(pod.metadata?.name ?? '');
      this.queue.add(SCHEDULE);
    });
    await pods.start();
    await pods.waitForSync();
    // Listed before any reconcile runs, so a Pod this run binds is never taken for one of these.
    for (const pod of pods.list()) {
      if (pod.spec?.nodeName === this.nodeName && !isPodFinished(pod))
        this.kubelet.orphans.add(pod.metadata?.uid ?? '');
    }
    this.queue.addAfter(HEARTBEAT, this.opts.heartbeatIntervalMs ?? 10_000);
    this.queue.start();
    this.log.info({ slots: this.slots, logDir: this.dirs.logDir }, 'dev node agent started');
  }

  /** Stops, killing every Pod process as a vanished node would; their Pods keep their last status. */
  async stop(): Promise<void> {
    await this.queue.shutdown();
    await this.pods?.stop();
    await this.kubelet?.stopAll();
    if (this.tempBase) await rm(this.tempBase, { recursive: true, force: true });
    this.log.info('dev node agent stopped');
  }

  private async handle(key: string): Promise<HandlerResult | undefined> {
    if (key === SCHEDULE) return this.scheduler?.pass();
    if (key === HEARTBEAT) return this.heartbeat();
    return this.kubelet?.reconcile(key);
  }

  private async heartbeat(): Promise<HandlerResult> {
    try {
      await heartbeatNode(this.kube, this.node, this.since);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.log.warn('node object gone; registering again');
      await registerNode(this.kube, this.node);
    }
    return { requeueAfterMs: this.opts.heartbeatIntervalMs ?? 10_000 };
  }

  private async makeDirs(): Promise<{ logDir: string; workDir: string }> {
    const base = this.opts.logDir && this.opts.workDir ? '' : await mkdtemp(join(tmpdir(), 'genjobs-node-'));
    this.tempBase = base;
    const logDir = this.opts.logDir ?? join(base, 'logs');
    const workDir = this.opts.workDir ?? join(base, 'pods');
    await mkdir(logDir, { recursive: true });
    await mkdir(workDir, { recursive: true });
    return { logDir, workDir };
  }
}

/**
 * What a worker process gets of this process's environment before its Pod's own: what a
 * program needs to run here, and the CAs dev mode was told to trust (NODE_EXTRA_CA_CERTS), so
 * a worker fetches an input image from the same local https server the webhooks reach.
 * Nothing else: no kubeconfig, no secrets, as a worker Pod has none.
 */
function workerBaseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_EXTRA_CA_CERTS'];
  return Object.fromEntries(
    keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])),
  );
}
