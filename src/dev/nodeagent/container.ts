import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kube } from '../../k8s/client.ts';
import type { Container, Pod } from '../../k8s/pods.ts';
import { type Launch, prepareLaunch } from './launch.ts';
import { type ContainerExit, type ContainerProcess, startContainer, terminationMessage } from './process.ts';
import { kubeSources } from './sources.ts';
import type { Termination } from './status.ts';

/** A container started on this machine: its process, how it was launched, where its output goes. */
export interface LocalContainer {
  process: ContainerProcess;
  launch: Launch;
  logFile: string;
}

export interface ContainerContext {
  kube: Kube;
  podDir: string;
  logDir: string;
  commandMap: Readonly<Record<string, readonly string[]>>;
  baseEnv: Readonly<Record<string, string>>;
}

/**
 * Sets up a Pod's container (volumes, env, files) and starts its process, its output going
 * to `<logDir>/<namespace>_<pod>_<uid>.log` as kubelet names its log files. Throws
 * ContainerConfigError, having removed what it made, when a reference cannot be resolved.
 */
export async function runContainer(
  pod: Pod,
  container: Container,
  ctx: ContainerContext,
): Promise<LocalContainer> {
  let launch: Launch;
  try {
    launch = await prepareLaunch(pod, container, { ...ctx, sources: kubeSources(ctx.kube) });
  } catch (err) {
    await rm(ctx.podDir, { recursive: true, force: true });
    throw err;
  }
  const { namespace, name, uid } = pod.metadata ?? {};
  const logFile = join(ctx.logDir, `${namespace}_${name}_${uid}.log`);
  return { process: startContainer({ ...launch, logFile }), launch, logFile };
}

/** The container's terminated state, with the termination message as kubelet reads it. */
export async function termination(
  exit: ContainerExit,
  local: LocalContainer,
  container: Container,
): Promise<Termination> {
  const failed = exit.exitCode !== 0;
  const message =
    exit.startError ??
    (await terminationMessage(
      local.launch.messageFile,
      local.logFile,
      container.terminationMessagePolicy,
      failed,
    ));
  return {
    exitCode: exit.exitCode,
    reason: exit.startError ? 'StartError' : failed ? 'Error' : 'Completed',
    message,
    startedAt: local.process.startedAt,
    finishedAt: exit.finishedAt,
    containerID: containerId(local.process),
  };
}

/** The containerID a Pod status shows: the runtime's name and the process id. */
export function containerId(process: ContainerProcess): string | undefined {
  return process.pid === undefined ? undefined : `genjobs-dev://${process.pid}`;
}
