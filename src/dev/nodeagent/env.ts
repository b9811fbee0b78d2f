import type { Container, Pod } from '../../k8s/pods.ts';
import { ContainerConfigError, readSource, type Sources } from './sources.ts';

/**
 * A container's environment as kubelet builds it: `envFrom` sources first (with their
 * prefix), then `env` in order, each value expanded with `$(NAME)` references to the
 * variables defined before it. Values come from literals, Secret and ConfigMap keys, and
 * the Pod's own fields.
 */
export async function containerEnv(
  pod: Pod,
  container: Container,
  sources: Sources,
): Promise<Map<string, string>> {
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const kind = from.secretRef ? 'Secret' : 'ConfigMap';
    const ref = from.secretRef ?? from.configMapRef;
    const data = await readSource(sources, kind, ref?.name, ref?.optional);
    for (const [key, value] of data ?? []) env.set(`${from.prefix ?? ''}${key}`, value.toString('utf8'));
  }
  for (const v of container.env ?? []) {
    if (v.valueFrom === undefined) {
      env.set(v.name, expand(v.value ?? '', env));
      continue;
    }
    const { secretKeyRef, configMapKeyRef, fieldRef } = v.valueFrom;
    const keyRef = secretKeyRef ?? configMapKeyRef;
    if (keyRef) {
      const kind = secretKeyRef ? 'Secret' : 'ConfigMap';
      const data = await readSource(sources, kind, keyRef.name, keyRef.optional);
      const value = data?.get(keyRef.key);
      if (value !== undefined) env.set(v.name, value.toString('utf8'));
      else if (!keyRef.optional) {
        throw new ContainerConfigError(
          `couldn't find key ${keyRef.key} in ${kind} ${pod.metadata?.namespace}/${keyRef.name}`,
        );
      }
    } else if (fieldRef) {
      env.set(v.name, podField(pod, fieldRef.fieldPath));
    } else {
      throw new ContainerConfigError(
        `env ${v.name}: only secretKeyRef, configMapKeyRef and fieldRef are supported here`,
      );
    }
  }
  return env;
}

/** The downward API fields a container's env (or a downwardAPI volume) can refer to. */
export function podField(pod: Pod, path: string): string {
  const meta = pod.metadata ?? {};
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (labelOrAnnotation) {
    const [, which, key] = labelOrAnnotation;
    return (which === 'labels' ? meta.labels : meta.annotations)?.[key ?? ''] ?? '';
  }
  switch (path) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.podIP':
      return '127.0.0.1';
    default:
      throw new ContainerConfigError(`unsupported fieldRef ${path}`);
  }
}

/**
 * Kubernetes' `$(NAME)` expansion: a reference to a defined variable is replaced by its
 * value, an undefined one is left as written, and `$$` stands for a literal `$`.
 */
export function expand(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && vars.has(name) ? vars.get(name)! : match;
  });
}
