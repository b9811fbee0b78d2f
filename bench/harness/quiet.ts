import type { Kube } from '../../src/k8s/client.ts';
import { isPodFinished } from '../../src/k8s/pods.ts';
import type { Resources } from '../../src/k8s/resources.ts';
import { sleep, waitFor } from './stats.ts';

/**
 * Waits until the work left behind by finished items has been done, so the write count
 * taken next is the whole cost of the run: the predicate (Pods stopped, reservations and leases settled,
 * finalizers removed), then a moment for fire-and-forget writes (Events) to land.
 */
export async function quiesce(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  await waitFor(what, done, timeoutMs, 250);
  await sleep(1500);
}

/**
 * No Pod running in the namespace (stopped ones are kept a while; with `podsDeleted`, none
 * left at all) and no reservation or credit lease held on any Account.
 */
export async function genjobsSettled(
  kube: Kube,
  r: Resources,
  { podsDeleted = false }: { podsDeleted?: boolean } = {},
): Promise<boolean> {
  const pods = await kube.core.listNamespacedPod({ namespace: kube.namespace });
  if (podsDeleted ? pods.items.length > 0 : !pods.items.every(isPodFinished)) return false;
  const accounts = await r.accounts.listAll();
  return accounts.every(
    (a) =>
      Object.keys(a.status?.reservations ?? {}).length === 0 &&
      Object.keys(a.status?.leases ?? {}).length === 0,
  );
}
