import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../catalog/index.ts';
import type { GenerationJob } from '../../k8s/types.ts';
import { buildWorkerPod, seedOf } from './pod.ts';

const job: GenerationJob = {
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: { name: 'j1', uid: 'u1' },
  spec: {
    account: 'acme',
    model: 'genjobs/reference-image/text-to-image',
    version: 'v1.0',
    input: { prompt: 'x', seed: 7 },
    costMicroCents: 1,
  },
};
const runtime = (pod?: Runtime['pod']): Runtime =>
  ({
    type: 'builtin',
    maxConcurrency: 1,
    timeoutSeconds: 600,
    typicalSeconds: 30,
    ...(pod ? { pod } : {}),
  }) as Runtime;
const settings = {
  image: 'img:1',
  command: ['genjobs', 'worker'],
  blobUrl: 'http://api/files',
  blobPublicUrl: 'https://cdn/files',
  blobGrant: 'g',
};

describe('buildWorkerPod', () => {
  it('runs restricted, without credentials, with the job in its environment', () => {
    const pod = buildWorkerPod(job, 2, runtime(), settings);
    const c = pod.spec!.containers[0]!;
    expect(pod.metadata?.name).toBe('gj-j1-2');
    expect(pod.spec).toMatchObject({
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      activeDeadlineSeconds: 600,
    });
    expect(pod.spec!.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'GenerationJob',
      name: 'j1',
      uid: 'u1',
      controller: true,
    });
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    expect(JSON.parse(env.GENJOBS_JOB!)).toMatchObject({
      jobId: 'j1',
      capability: 'text-to-image',
      seed: 7,
      runtime: { type: 'builtin' },
    });
    expect(env.GENJOBS_BLOB_GRANT).toBe('g');
  });

  it('gives a job without a seed its own, from its id: a resubmit differs, a retry does not', () => {
    const seedIn = (j: GenerationJob, attempt = 1) => {
      const env = buildWorkerPod(j, attempt, runtime(), settings).spec!.containers[0]!.env ?? [];
      return JSON.parse(env.find((e) => e.name === 'GENJOBS_JOB')!.value!).seed as number;
    };
    const unseeded = (name: string): GenerationJob => ({
      ...job,
      metadata: { name, uid: name },
      spec: { ...job.spec, input: { prompt: 'x' } },
    });
    expect(seedIn(unseeded('a'))).toBe(seedOf('a'));
    expect(seedIn(unseeded('a'), 2)).toBe(seedIn(unseeded('a')));
    expect(seedIn(unseeded('b'))).not.toBe(seedIn(unseeded('a')));
    for (const id of ['a', 'b', 'c']) expect(seedOf(id)).toBeLessThanOrEqual(4_294_967_295);
    expect(seedIn(job)).toBe(7);
  });

  it('takes worker defaults from configuration and lets the model override them', () => {
    const defaults = {
      ...settings,
      serviceAccountName: 'genjobs-worker',
      resources: { limits: { memory: '1Gi' } },
      nodeSelector: { pool: 'cpu', zone: 'a' },
      tolerations: [{ key: 'spot', operator: 'Exists' as const }],
    };
    const plain = buildWorkerPod(job, 1, runtime(), defaults).spec!;
    expect(plain.serviceAccountName).toBe('genjobs-worker');
    expect(plain.containers[0]!.resources).toEqual({ limits: { memory: '1Gi' } });
    const own = buildWorkerPod(
      job,
      1,
      runtime({
        resources: { requests: { cpu: 2 } },
        nodeSelector: { pool: 'gpu' },
        tolerations: [{ key: 'gpu', operator: 'Exists' }],
      }),
      defaults,
    ).spec!;
    expect(own.containers[0]!.resources).toEqual({ requests: { cpu: '2' } });
    expect(own.nodeSelector).toEqual({ pool: 'gpu', zone: 'a' });
    expect(own.tolerations?.map((t) => t.key)).toEqual(['spot', 'gpu']);
  });
});
