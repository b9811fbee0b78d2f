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

/**
 * Deep equality for status objects (JSON data only), to skip writes that change nothing: a
 * key whose value is undefined counts as absent, as JSON.stringify drops it. Asked on every
 * reconcile, so it walks the two objects rather than serializing them.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    defined++;
    if (!sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) defined--;
  return defined === 0;
}

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: the members that changed,
 * objects patched member by member, arrays and other values whole, and `null` for what
 * `to` no longer has. Applied to `from` it gives `to` (for JSON data without nulls: a
 * null in a merge patch means "remove").
 */
export function mergePatch(from: object, to: object): Record<string, unknown> {
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const [x, y] = [a[k], b[k]];
    if (sameJson(x, y)) continue;
    if (y === undefined) patch[k] = null;
    else if (isRecord(x) && isRecord(y)) patch[k] = mergePatch(x, y);
    else patch[k] = y;
  }
  return patch;
}

const isRecord = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
