import type { Condition, ConditionStatus } from '../k8s/types.ts';

/**
 * Sets a condition the Kubernetes way: `lastTransitionTime` moves only when the status
 * changes, so it tells when the condition last flipped, not when it was last written.
 * Returns a new array; the input is never mutated (it may be a shared cache object).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: {
    type: string;
    status: ConditionStatus;
    reason: string;
    message?: string;
    observedGeneration?: number;
  },
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const condition: Condition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    ...(next.message !== undefined ? { message: next.message } : {}),
    lastTransitionTime: prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString(),
    ...(next.observedGeneration !== undefined ? { observedGeneration: next.observedGeneration } : {}),
  };
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  return list;
}

/** Deep equality for status objects (JSON data only), to skip writes that change nothing. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  }
  return v;
}
