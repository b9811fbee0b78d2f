import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNever } from '../../errors.ts';
import type { Kube } from '../../k8s/client.ts';
import { isNotFound } from '../../k8s/errors.ts';
import type { Informer } from '../../k8s/informer.ts';
import { deletePod, type Pod, type PodStatus, patchPodStatus, timeOf } from '../../k8s/pods.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Logger } from '../../log.ts';
import { containerId, type LocalContainer, runContainer, termination } from './container.ts';
import { type Action, decide, type PodRecord } from './decide.ts';
import { ContainerConfigError } from './sources.ts';
import * as status from './status.ts';

export interface KubeletOptions {
  kube: Kube;
  log: Logger;
  pods: Informer<Pod>;
  nodeName: string;
  commandMap: Readonly<Record<string, readonly string[]>>;
  baseEnv: Readonly<Record<string, string>>;
  logDir: string;
  workDir: string;
  configRetryMs: number;
  /** Brings a Pod's key back to the queue (its process exited). */
  requeue: (name: string) => void;
  /** A slot may have come free. */
  freed: () => void;
  now: () => number;
}

/** The agent's record of a Pod it runs, with the process and local files behind it. */
interface Tracked extends PodRecord {
  podDir: string;
  container?: LocalContainer;
}

/**
 * The kubelet half of the agent: one reconcile per Pod key runs the pure `decide` on the
 * cached Pod and the agent's record of it, then performs the one action it names (start
 * the container, signal it, write the final status, finalize a deletion).
 */
export class Kubelet {
  /** Pods bound here before this run started, whose processes died with the previous agent. */
  readonly orphans = new Set<string>();
  private readonly records = new Map<string, Tracked>();
  private readonly opts: KubeletOptions;

  constructor(options: KubeletOptions) {
    this.opts = options;
  }

  /** Whether this agent has written the Pod's final status (which the cache may not show yet). */
  hasFinished(pod: Pod): boolean {
    const record = this.records.get(pod.metadata?.name ?? '');
    return record?.uid === pod.metadata?.uid && record?.finished === true;
  }

  async reconcile(name: string): Promise<HandlerResult | undefined> {
    const pod = this.opts.pods.get(name);
    const record = this.records.get(name);
    const now = this.opts.now();
    const orphan = this.orphans.has(pod?.metadata?.uid ?? '');
    const action = decide({ pod, record, nodeName: this.opts.nodeName, orphan, now });
    return this.apply(action, name, pod, record, now);
  }

  private async apply(
    action: Action,
    name: string,
    pod: Pod | undefined,
    record: Tracked | undefined,
    now: number,
  ): Promise<HandlerResult | undefined> {
    const log = this.opts.log.child({ pod: name });
    switch (action.type) {
      case 'none':
        return undefined;
      case 'start':
        return this.start(name, pod!, record, log);
      case 'running': {
        const started = record?.container?.process;
        if (action.report && started) {
          const container = pod!.spec!.containers[0]!;
          const id = containerId(started) ?? '';
          const at = new Date(now);
          await this.write(
            pod!,
            status.runningStatus(pod!, container, record.startTime, started.startedAt, id, at),
          );
          record.reportedRunning = true;
        }
        return { requeueAfterMs: action.requeueAfterMs };
      }
      case 'wait':
        return { requeueAfterMs: action.requeueAfterMs };
      case 'signal':
        record!.stopReason ??= action.reason;
        record!.termSentAt ??= now;
        if (action.signal === 'SIGKILL') record!.killSent = true;
        record!.container?.process.signal(action.signal);
        log.info({ signal: action.signal, reason: action.reason }, 'stopping container');
        return { requeueAfterMs: action.requeueAfterMs };
      case 'finish':
        return this.finish(pod!, record!, log);
      case 'release':
        await rm(record!.podDir, { recursive: true, force: true });
        this.records.delete(name);
        log.info('pod gone; its local files removed');
        this.opts.freed();
        // A successor may hold the name already.
        return { requeueAfterMs: 0 };
      case 'finalize':
        if (record) await rm(record.podDir, { recursive: true, force: true });
        if (await deletePod(this.opts.kube, name, { uid: pod?.metadata?.uid, gracePeriodSeconds: 0 })) {
          log.info('pod deleted');
        }
        return undefined;
      case 'node-lost':
        await this.write(
          pod!,
          status.podFailedStatus(pod!, new Date(now), status.NODE_LOST, status.NODE_LOST_MESSAGE),
        );
        this.orphans.delete(pod!.metadata?.uid ?? '');
        log.warn('pod was bound here before the agent restarted: marked NodeLost');
        this.opts.freed();
        return undefined;
      case 'forget':
        this.records.delete(name);
        return undefined;
      default:
        return assertNever(action);
    }
  }

  private async start(
    name: string,
    pod: Pod,
    previous: Tracked | undefined,
    log: Logger,
  ): Promise<HandlerResult | undefined> {
    const uid = pod.metadata?.uid ?? '';
    const spec = pod.spec!;
    const now = new Date(this.opts.now());
    if (spec.containers.length !== 1 || (spec.initContainers?.length ?? 0) > 0) {
      const message = 'the dev node agent runs Pods with exactly one container and no init containers';
      await this.write(pod, status.podFailedStatus(pod, now, 'UnsupportedPodSpec', message, false));
      log.warn(message);
      return undefined;
    }
    const container = spec.containers[0]!;
    const record: Tracked = previous ?? {
      uid,
      startTime: timeOf(pod.status?.startTime) ?? now,
      graceSeconds: spec.terminationGracePeriodSeconds ?? 30,
      started: false,
      reportedRunning: false,
      killSent: false,
      finished: false,
      podDir: join(this.opts.workDir, uid),
    };
    this.records.set(name, record);
    if (!previous) {
      await this.write(pod, status.waitingStatus(pod, container, record.startTime, now));
      log.info('creating container');
    }
    let local: LocalContainer;
    try {
      local = await runContainer(pod, container, { ...this.opts, podDir: record.podDir });
    } catch (err) {
      if (!(err instanceof ContainerConfigError)) throw err;
      record.retryAt = this.opts.now() + this.opts.configRetryMs;
      const reason = 'CreateContainerConfigError';
      await this.write(pod, status.waitingStatus(pod, container, record.startTime, now, reason, err.message));
      log.warn({ reason: err.message }, 'cannot create container; will retry');
      return { requeueAfterMs: this.opts.configRetryMs };
    }
    Object.assign(record, { started: true, retryAt: undefined, container: local });
    void local.process.exited.then((exit) => {
      record.exit = exit;
      this.opts.requeue(name);
    });
    // The executable only: arguments and env may carry values from Secrets.
    const { pid } = local.process;
    log.info({ processId: pid, command: local.launch.argv[0], logFile: local.logFile }, 'container started');
    return { requeueAfterMs: 0 };
  }

  private async finish(pod: Pod, record: Tracked, log: Logger): Promise<HandlerResult | undefined> {
    const exit = record.exit!;
    const container = pod.spec!.containers[0]!;
    const ended = await termination(exit, record.container!, container);
    const podFailure =
      record.stopReason === 'DeadlineExceeded'
        ? { reason: status.DEADLINE_EXCEEDED, message: status.DEADLINE_MESSAGE }
        : undefined;
    const at = new Date(this.opts.now());
    const final = status.terminatedStatus(pod, container, record.startTime, ended, at, podFailure);
    await this.write(pod, final);
    record.finished = true;
    await rm(record.podDir, { recursive: true, force: true });
    log.info({ exitCode: exit.exitCode, phase: final.phase, reason: podFailure?.reason }, 'container exited');
    this.opts.freed();
    // A Pod being deleted is finalized on the next pass.
    return pod.metadata?.deletionTimestamp ? { requeueAfterMs: 0 } : undefined;
  }

  /** Writes the Pod's status; a Pod deleted meanwhile is not an error (its delete event follows). */
  private async write(pod: Pod, next: PodStatus): Promise<void> {
    try {
      await patchPodStatus(this.opts.kube, pod.metadata?.name ?? '', next, { uid: pod.metadata?.uid });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Kills every container at once, as a node that goes away does, and removes their files. */
  async stopAll(): Promise<void> {
    const records = [...this.records.values()];
    for (const r of records) r.container?.process.signal('SIGKILL');
    await Promise.all(records.map((r) => r.container?.process.exited));
    await Promise.all(records.map((r) => rm(r.podDir, { recursive: true, force: true })));
    this.records.clear();
  }
}
