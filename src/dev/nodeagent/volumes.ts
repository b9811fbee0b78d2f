import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Container, Pod, Volume } from '../../k8s/pods.ts';
import { podField } from './env.ts';
import { ContainerConfigError, type Data, readSource, type Sources } from './sources.ts';

/** Where each in-container path lives on this machine: mount paths and single files. */
export class PathMap {
  private readonly dirs: Array<[string, string]> = [];
  private readonly files = new Map<string, string>();

  /** Maps a directory and everything under it. */
  addDir(containerPath: string, localPath: string): void {
    this.dirs.push([containerPath.replace(/\/+$/, '') || '/', localPath]);
    // The deepest mount wins, as it would shadow the shallower one in a container.
    this.dirs.sort((a, b) => b[0].length - a[0].length);
  }

  addFile(containerPath: string, localPath: string): void {
    this.files.set(containerPath, localPath);
  }

  /** The local path for a value that is a mapped path or lies under one; other values unchanged. */
  rewrite(value: string): string {
    const file = this.files.get(value);
    if (file !== undefined) return file;
    for (const [path, local] of this.dirs) {
      if (value === path) return local;
      if (value.startsWith(`${path}/`)) return join(local, value.slice(path.length + 1));
    }
    return value;
  }
}

/**
 * Makes the container's volumes as local directories under `podDir`: an emptyDir is a fresh
 * directory, a configMap or secret volume a directory of its keys as files (or the chosen
 * `items`), and maps each volumeMount's path (with its subPath) to the local directory.
 */
export async function mountVolumes(
  pod: Pod,
  container: Container,
  podDir: string,
  sources: Sources,
  paths: PathMap,
): Promise<void> {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const made = new Map<string, string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = volumes.get(mount.name);
    if (!volume) throw new ContainerConfigError(`volumeMount ${mount.name}: no volume of that name`);
    let local = made.get(volume.name);
    if (local === undefined) {
      local = join(podDir, 'volumes', volume.name);
      await mkdir(local, { recursive: true });
      await fill(pod, volume, local, sources);
      made.set(volume.name, local);
    }
    const target = mount.subPath ? inside(local, mount.subPath) : local;
    // A subPath may name a file of the volume; kubelet makes a directory only when nothing is there.
    if (!existsSync(target)) await mkdir(target, { recursive: true });
    paths.addDir(mount.mountPath, target);
  }
}

async function fill(pod: Pod, volume: Volume, dir: string, sources: Sources): Promise<void> {
  if (volume.emptyDir) return;
  if (volume.downwardAPI) {
    for (const item of volume.downwardAPI.items ?? []) {
      if (!item.fieldRef)
        throw new ContainerConfigError(`volume ${volume.name}: only fieldRef items are supported here`);
      await writeItem(
        inside(dir, item.path),
        Buffer.from(podFieldFile(pod, item.fieldRef.fieldPath)),
        item.mode ?? volume.downwardAPI.defaultMode ?? 0o644,
      );
    }
    return;
  }
  const source = volume.secret ?? volume.configMap;
  if (!source) {
    throw new ContainerConfigError(
      `volume ${volume.name}: only emptyDir, configMap, secret and downwardAPI volumes are supported here`,
    );
  }
  const kind = volume.secret ? 'Secret' : 'ConfigMap';
  const name = volume.secret ? volume.secret.secretName : volume.configMap?.name;
  const data = await readSource(sources, kind, name, source.optional);
  const mode = source.defaultMode ?? 0o644;
  for (const { key, path, fileMode } of items(data, source.items, kind, name, source.optional)) {
    await writeItem(inside(dir, path), data?.get(key) ?? Buffer.alloc(0), fileMode ?? mode);
  }
}

async function writeItem(file: string, content: Buffer, mode: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  await chmod(file, mode);
}

/** A downward API file: whole label and annotation maps as kubelet writes them, `key="value"` lines. */
function podFieldFile(pod: Pod, path: string): string {
  if (path !== 'metadata.labels' && path !== 'metadata.annotations') return podField(pod, path);
  const map = (path === 'metadata.labels' ? pod.metadata?.labels : pod.metadata?.annotations) ?? {};
  return Object.keys(map)
    .sort()
    .map((k) => `${k}=${JSON.stringify(map[k])}`)
    .join('\n');
}

function items(
  data: Data | undefined,
  chosen: Array<{ key: string; path: string; mode?: number }> | undefined,
  kind: string,
  name: string | undefined,
  optional: boolean | undefined,
): Array<{ key: string; path: string; fileMode?: number }> {
  if (!chosen) return [...(data?.keys() ?? [])].map((key) => ({ key, path: key }));
  const present = chosen.filter((item) => {
    if (data?.has(item.key)) return true;
    if (optional) return false;
    throw new ContainerConfigError(`couldn't find key ${item.key} in ${kind} ${name}`);
  });
  return present.map((item) => ({ key: item.key, path: item.path, fileMode: item.mode }));
}

/** A relative path under `dir`; one that climbs out (`..`) is refused, as the apiserver would. */
function inside(dir: string, relative: string): string {
  const path = resolve(dir, relative);
  if (path !== dir && !path.startsWith(dir + sep)) {
    throw new ContainerConfigError(`path ${relative} leaves its volume`);
  }
  return path;
}
