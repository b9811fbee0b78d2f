import { createHash } from 'node:crypto';
import type { Runtime } from '../../catalog/index.ts';
import { labelValue } from '../../jobs/labels.ts';
import type { EnvVar, Pod } from '../../k8s/pods.ts';
import { API_VERSION, type GenerationJob } from '../../k8s/types.ts';
import { podName } from './decide.ts';

export interface PodSettings {
  image: string;
  command: string[];
  /** Where the worker reaches the api's /files to store outputs. */
  blobUrl: string;
  /** Base of the URLs clients download outputs from. */
  blobPublicUrl: string;
  /** A grant to write under the job's own prefix, valid a little longer than the runtime's timeout. */
  blobGrant: string;
  priorityClassName?: string | undefined;
  /** A ServiceAccount without bindings; its token is not mounted either way. */
  serviceAccountName?: string | undefined;
  /** Defaults under every model's own runtime.pod settings. */
  resources?: PodResources;
  nodeSelector?: Record<string, string>;
  tolerations?: NonNullable<Runtime['pod']>['tolerations'];
  /** Input URLs may name private addresses (dev, private deployments). */
  allowPrivateInputs?: boolean;
}

type PodResources = { requests?: Record<string, string | number>; limits?: Record<string, string | number> };

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'genjobs' } as const;
export const JOB_LABEL = 'genjobs.io/job';
const SCRATCH = '/scratch';
const TERMINATION_LOG = '/dev/termination-log';

/**
 * The worker Pod of one attempt. It runs under the Pod Security "restricted" profile,
 * holds no Kubernetes credentials (the controller is the only writer of job status), and
 * gets the job through its environment; its result comes back in the termination message.
 */
export function buildWorkerPod(
  job: GenerationJob,
  attempt: number,
  runtime: Runtime,
  settings: PodSettings,
): Pod {
  const jobId = job.metadata.name ?? '';
  const capability = job.spec.model.split('/')[2] ?? '';
  const workerJob = {
    jobId,
    model: job.spec.model,
    capability,
    version: job.spec.version,
    input: job.spec.input,
    seed: typeof job.spec.input.seed === 'number' ? job.spec.input.seed : seedOf(jobId),
    runtime: {
      type: runtime.type,
      timeoutSeconds: runtime.timeoutSeconds,
      ...(runtime.type === 'http' ? { url: runtime.url } : {}),
    },
  };
  const env: EnvVar[] = [
    { name: 'GENJOBS_JOB', value: JSON.stringify(workerJob) },
    { name: 'GENJOBS_BLOB_URL', value: settings.blobUrl },
    { name: 'GENJOBS_BLOB_GRANT', value: settings.blobGrant },
    { name: 'GENJOBS_BLOB_PUBLIC_URL', value: settings.blobPublicUrl },
    { name: 'GENJOBS_TERMINATION_LOG', value: TERMINATION_LOG },
    { name: 'GENJOBS_SCRATCH_DIR', value: SCRATCH },
    { name: 'TMPDIR', value: SCRATCH },
    { name: 'HOME', value: SCRATCH },
  ];
  if (settings.allowPrivateInputs) env.push({ name: 'GENJOBS_INPUT_ALLOW_PRIVATE', value: 'true' });
  if (runtime.type === 'http' && runtime.authSecretRef) {
    env.push({
      name: 'GENJOBS_RUNTIME_TOKEN',
      valueFrom: { secretKeyRef: { name: runtime.authSecretRef.name, key: runtime.authSecretRef.key } },
    });
  }
  const pod = runtime.pod ?? {};
  const nodeSelector = { ...settings.nodeSelector, ...pod.nodeSelector };
  const tolerations = [...(settings.tolerations ?? []), ...(pod.tolerations ?? [])];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(jobId, attempt),
      labels: {
        ...MANAGED_BY,
        [JOB_LABEL]: jobId,
        'genjobs.io/model': labelValue(job.spec.model),
        'genjobs.io/attempt': String(attempt),
      },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'GenerationJob',
          name: jobId,
          uid: job.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      activeDeadlineSeconds: runtime.timeoutSeconds,
      terminationGracePeriodSeconds: 15,
      ...(settings.priorityClassName ? { priorityClassName: settings.priorityClassName } : {}),
      ...(settings.serviceAccountName ? { serviceAccountName: settings.serviceAccountName } : {}),
      ...(Object.keys(nodeSelector).length ? { nodeSelector } : {}),
      ...(tolerations.length ? { tolerations } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'worker',
          image: settings.image,
          command: settings.command,
          env,
          resources: stringQuantities(pod.resources ?? settings.resources),
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: [{ name: 'scratch', mountPath: SCRATCH }],
          terminationMessagePath: TERMINATION_LOG,
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
      volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '4Gi' } }],
    },
  };
}

function stringQuantities(
  resources:
    | { requests?: Record<string, string | number>; limits?: Record<string, string | number> }
    | undefined,
) {
  const conv = (m?: Record<string, string | number>) =>
    m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)])) : undefined;
  return {
    ...(resources?.requests ? { requests: conv(resources.requests) } : {}),
    ...(resources?.limits ? { limits: conv(resources.limits) } : {}),
  };
}

/**
 * The seed of a job whose input gives none: its own, from its id (32 bits, the range of the
 * catalog's `seed`). A resubmit is a new job and a new output, as "generate again" should be;
 * a retry of the same job (a new attempt) makes the same one.
 */
export function seedOf(jobId: string): number {
  return createHash('sha256').update(jobId).digest().readUInt32BE(0);
}
