import type { GenerationJob } from '../k8s/types.ts';

/**
 * The condition the controller sets on a job whose worker Pod the apiserver refused (a
 * ResourceQuota, a LimitRange, Pod Security, an admission webhook): it is True while the job
 * waits for the cluster to let its Pod be made, False once one is. The api shows such a job
 * no completion estimate: it cannot tell when the cluster will make room.
 */
export const POD_REFUSED = 'PodRefused';

export function podRefused(job: GenerationJob): boolean {
  return job.status?.conditions?.some((c) => c.type === POD_REFUSED && c.status === 'True') ?? false;
}
