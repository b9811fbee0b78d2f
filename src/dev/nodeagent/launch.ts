import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod } from '../../k8s/pods.ts';
import { containerEnv, expand } from './env.ts';
import type { Sources } from './sources.ts';
import { mountVolumes, PathMap } from './volumes.ts';

/** Where a container writes its termination message unless its spec says otherwise. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** What to run on this machine for a container, and where its files are. */
export interface Launch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** The local file standing for the container's terminationMessagePath. */
  messageFile: string;
}

export interface LaunchContext {
  /** This Pod's own directory on this machine (volumes, termination message, scratch). */
  podDir: string;
  /** Executables to use for a container command's first word; others run as they are. */
  commandMap: Readonly<Record<string, readonly string[]>>;
  /** The environment every container starts from (an image's ENV, in effect). */
  baseEnv: Readonly<Record<string, string>>;
  sources: Sources;
}

/**
 * Translates a Pod's container into a local process: command and args with `$(NAME)`
 * expanded and the command's first word mapped, the environment resolved, volumes made as
 * local directories, and every env value or argument that names a path inside a mount (or
 * the termination message path) rewritten to the local path. Throws ContainerConfigError
 * for references that cannot be resolved.
 */
export async function prepareLaunch(pod: Pod, container: Container, ctx: LaunchContext): Promise<Launch> {
  const paths = new PathMap();
  await mkdir(ctx.podDir, { recursive: true });
  await mountVolumes(pod, container, ctx.podDir, ctx.sources, paths);
  const messageFile = join(ctx.podDir, 'termination-log');
  // Kubelet creates the file empty, so a container that writes nothing reports nothing.
  await writeFile(messageFile, '');
  paths.addFile(container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH, messageFile);

  const vars = await containerEnv(pod, container, ctx.sources);
  const [first, ...rest] = (container.command ?? []).map((word) => expand(word, vars));
  const args = (container.args ?? []).map((word) => expand(word, vars));
  const mapped = first === undefined ? [] : (ctx.commandMap[first] ?? [first]);
  const argv = [...mapped, ...[...rest, ...args].map((word) => paths.rewrite(word))];

  const env: Record<string, string> = { ...ctx.baseEnv, HOSTNAME: pod.metadata?.name ?? '' };
  for (const [name, value] of vars) env[name] = paths.rewrite(value);
  return { argv, env, cwd: await workingDir(container.workingDir, paths, ctx.podDir), messageFile };
}

/** The container's workingDir on this machine: inside a mount, an existing directory, or the Pod's own. */
async function workingDir(dir: string | undefined, paths: PathMap, podDir: string): Promise<string> {
  if (!dir) return podDir;
  const local = paths.rewrite(dir);
  if (local !== dir) {
    await mkdir(local, { recursive: true });
    return local;
  }
  return existsSync(dir) ? dir : podDir;
}
