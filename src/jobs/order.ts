import type { GenerationJob } from '../k8s/types.ts';
import { SUBMITTED_AT_ANNOTATION } from './labels.ts';

/** What orders a waiting job: when it was submitted (see {@link queuedOf}), then its name. */
export interface Queued {
  name: string;
  created: string;
}

/**
 * A job's place in its queue: the api's submit time to the millisecond (an annotation),
 * else the apiserver's creationTimestamp (whole seconds: a job made before the annotation).
 * Both are RFC 3339 in UTC, so text order is time order; in one second, a job without the
 * annotation ("…:44Z") sorts after those with it ("…:44.120Z").
 */
export function queuedOf(job: GenerationJob): Queued {
  return {
    name: job.metadata.name ?? '',
    created: job.metadata.annotations?.[SUBMITTED_AT_ANNOTATION] ?? job.metadata.creationTimestamp ?? '',
  };
}

/**
 * The order in which waiting jobs start: first submitted first, ties broken by name. The
 * controller admits in this order, and the api numbers queue positions in it, so the two
 * always agree.
 */
export function admissionOrder(a: Queued, b: Queued): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Waiting jobs of one model in admission order, kept sorted as they come and go: an
 * insert, a removal and a position are a binary search (and a native array move), so a
 * queue of thousands costs nothing per submit.
 */
export class AdmissionQueue<T extends Queued> {
  private readonly items: T[] = [];

  get length(): number {
    return this.items.length;
  }

  /** The jobs in admission order (do not mutate). */
  get all(): readonly T[] {
    return this.items;
  }

  /** Where `q` stands, or would stand: the number of jobs before it. */
  position(q: Queued): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (admissionOrder(this.items[mid]!, q) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds or replaces the entry of `item.name` (its creation time never changes). */
  put(item: T): void {
    const at = this.position(item);
    if (this.items[at]?.name === item.name) this.items[at] = item;
    else this.items.splice(at, 0, item);
  }

  remove(q: Queued): void {
    const at = this.position(q);
    if (this.items[at]?.name === q.name) this.items.splice(at, 1);
  }

  has(q: Queued): boolean {
    return this.items[this.position(q)]?.name === q.name;
  }
}
