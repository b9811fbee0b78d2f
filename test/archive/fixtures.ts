import { API_VERSION, type GenerationJob, type JobPhase } from '../../src/k8s/types.ts';

/** A finished job resource as the apiserver hands it out (managedFields and all). */
export function finishedJob(
  id: string,
  o: { account?: string; model?: string; phase?: JobPhase; createdAt?: string; completedAt?: string } = {},
): GenerationJob {
  const phase = o.phase ?? 'completed';
  const createdAt = o.createdAt ?? '2026-11-20T10:00:00Z';
  return {
    apiVersion: API_VERSION,
    kind: 'GenerationJob',
    metadata: {
      name: id,
      namespace: 'genjobs',
      uid: `uid-${id}`,
      resourceVersion: '42',
      creationTimestamp: createdAt,
      labels: { 'genjobs.io/account': o.account ?? 'acme', 'genjobs.io/model': 'm' },
      managedFields: [{ manager: 'genjobs', operation: 'Update' }],
    } as GenerationJob['metadata'],
    spec: {
      account: o.account ?? 'acme',
      model: o.model ?? 'flux-schnell',
      version: 'v1',
      input: { prompt: 'a red fox, «snow», 雪', seed: 7 },
      costMicroCents: 134_000,
    },
    status: {
      phase,
      progress: phase === 'completed' ? 100 : 0,
      ...(phase === 'completed'
        ? {
            outputs: [
              { url: `https://files.example/jobs/${id}/out.png`, type: 'image', thumbnail: 'https://t/x' },
            ],
          }
        : {}),
      ...(phase === 'failed' ? { error: { code: 'GENERATION_FAILED', message: 'the model refused' } } : {}),
      startedAt: createdAt,
      completedAt: o.completedAt ?? '2026-11-20T10:00:30Z',
    },
  };
}

/** Seconds after a base time, as a creationTimestamp. */
export const at = (seconds: number, base = Date.parse('2026-11-20T10:00:00Z')) =>
  new Date(base + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
