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
 * The order of one account's waiting jobs: first submitted first, ties broken by name.
 * Between accounts, {@link FairQueue} takes turns.
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
}

/** A waiting job and the account whose turn it waits for. */
export interface QueuedFor extends Queued {
  account: string;
}

interface Turns<T extends QueuedFor> {
  waiting: AdmissionQueue<T>;
  /** The account's jobs holding one of the variant's slots (or being started). */
  holding: Set<string>;
}

/**
 * One model variant's waiting jobs in the order they start: accounts take turns. An
 * account's i-th waiting job (its own order: first submitted first) has the turn
 * `holding + i`, where `holding` counts its jobs that hold one of the variant's slots; a
 * free slot goes to the lowest turn, ties to the one submitted first. So a tenant with
 * twenty jobs queued delays another's first job by one slot's worth of work, not by twenty
 * (first come, first served across accounts made one tenant's backlog everyone's wait), and
 * an account with fewer jobs running is served before one with more. The controller admits
 * in this order, and the api numbers queue positions and plays estimates in it, from the
 * same waiting jobs and holding counts, so the two agree.
 *
 * The whole order (estimates, the controller's look past jobs that are not ready) is made
 * turn by turn from the accounts' queues and kept until the queue changes; a position is a
 * binary search of it then, else a binary search per account with jobs waiting.
 */
export class FairQueue<T extends QueuedFor> {
  private readonly accounts = new Map<string, Turns<T>>();
  private count = 0;
  /** {@link order}'s answer until the queue changes. */
  private ordered: T[] | undefined;
  /** Accounts walked by {@link position} since the queue changed (see there). */
  private walked = 0;

  get length(): number {
    return this.count;
  }

  private turns(account: string): Turns<T> {
    let t = this.accounts.get(account);
    if (!t) {
      t = { waiting: new AdmissionQueue<T>(), holding: new Set() };
      this.accounts.set(account, t);
    }
    return t;
  }

  private tidy(account: string, t: Turns<T>): void {
    if (t.waiting.length === 0 && t.holding.size === 0) this.accounts.delete(account);
  }

  /** Adds or replaces the entry of `item.name` (its account and creation time never change). */
  put(item: T): void {
    this.changed();
    const w = this.turns(item.account).waiting;
    const before = w.length;
    w.put(item);
    this.count += w.length - before;
  }

  remove(item: QueuedFor): void {
    const t = this.accounts.get(item.account);
    if (!t) return;
    this.changed();
    const before = t.waiting.length;
    t.waiting.remove(item);
    this.count -= before - t.waiting.length;
    this.tidy(item.account, t);
  }

  /** The job holds a slot of the variant (or is being started): it counts against its account's turns. */
  hold(account: string, name: string): void {
    const held = this.turns(account).holding;
    if (held.has(name)) return;
    held.add(name);
    this.changed();
  }

  /** The job holds no slot any more (it ended, or its start did not happen). */
  release(account: string, name: string): void {
    const t = this.accounts.get(account);
    if (!t?.holding.delete(name)) return;
    this.changed();
    this.tidy(account, t);
  }

  private changed(): void {
    this.ordered = undefined;
    this.walked = 0;
  }

  /**
   * Where `item` stands, or would stand were it added: the number of jobs that start before
   * it. Once the order is made (the api's estimates of a running variant make it, and it is
   * kept until the queue changes) a binary search of it, which is sorted by (turn, submit
   * order); else a binary search per account with jobs waiting (a submit's answer, and the
   * controller's admission between two changes of the queue), not an O(n) order for it.
   * Positions asked of a queue that does not change (reads of a paused variant's jobs) make
   * the order once they have walked as many accounts as it has jobs: a queue of hundreds of
   * accounts cost each GET of one of its jobs a walk of them all, ~30 µs.
   */
  position(item: QueuedFor): number {
    const turn = this.turnOf(item);
    if (!this.ordered) {
      this.walked += this.accounts.size;
      if (this.walked > this.count) this.order();
    }
    if (this.ordered) {
      const ordered = this.ordered;
      let lo = 0;
      let hi = ordered.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const x = ordered[mid]!;
        if ((this.turnOf(x) - turn || admissionOrder(x, item)) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    let ahead = turn - (this.accounts.get(item.account)?.holding.size ?? 0);
    for (const [account, t] of this.accounts) {
      if (account === item.account || t.waiting.length === 0) continue;
      // Its jobs of a lower turn, and the one of the same turn if it was submitted first.
      const at = turn - t.holding.size;
      if (at < 0) continue;
      ahead += Math.min(at, t.waiting.length);
      const same = t.waiting.all[at];
      if (same !== undefined && admissionOrder(same, item) < 0) ahead++;
    }
    return ahead;
  }

  /** An account's i-th waiting job (or one that would be) has the turn `holding + i`. */
  private turnOf(item: QueuedFor): number {
    const own = this.accounts.get(item.account);
    return (own?.holding.size ?? 0) + (own?.waiting.position(item) ?? 0);
  }

  /**
   * Whether `item` (queued, or to be) starts ahead of a job of a later turn than its own: it
   * overtakes some of another account's backlog, not just jobs of its own turn.
   */
  overtakes(item: QueuedFor): boolean {
    const turn = this.turnOf(item);
    for (const t of this.accounts.values()) if (t.holding.size + t.waiting.length - 1 > turn) return true;
    return false;
  }

  /**
   * The waiting jobs in the order they start, kept until the queue changes. Made turn by
   * turn: the accounts whose jobs cover a turn (taken in as the turns reach them, dropped
   * when their jobs run out) give one job each, put in submit order; so O(n) for n jobs of
   * a few accounts, and no worse than a sort of each turn's jobs for many.
   */
  order(): readonly T[] {
    if (this.ordered) return this.ordered;
    const lists = [...this.accounts.values()]
      .filter((t) => t.waiting.length > 0)
      .map((t) => ({ from: t.holding.size, items: t.waiting.all }))
      .sort((x, y) => x.from - y.from);
    const out: T[] = [];
    const active: typeof lists = [];
    let next = 0;
    for (let turn = lists[0]?.from ?? 0; next < lists.length || active.length > 0; turn++) {
      if (active.length === 0) turn = Math.max(turn, lists[next]!.from);
      while (next < lists.length && lists[next]!.from <= turn) active.push(lists[next++]!);
      const start = out.length;
      let kept = 0;
      for (const l of active) {
        out.push(l.items[turn - l.from]!);
        if (turn - l.from + 1 < l.items.length) active[kept++] = l;
      }
      active.length = kept;
      sortFrom(out, start);
    }
    this.ordered = out;
    return out;
  }
}

/** Sorts `items[start..]` (one turn's jobs, usually a few) in submit order, in place. */
function sortFrom<T extends Queued>(items: T[], start: number): void {
  const n = items.length - start;
  if (n > 16) {
    const sorted = items.slice(start).sort(admissionOrder);
    for (let i = 0; i < n; i++) items[start + i] = sorted[i]!;
    return;
  }
  for (let i = start + 1; i < items.length; i++) {
    const x = items[i]!;
    let j = i - 1;
    while (j >= start && admissionOrder(items[j]!, x) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = x;
  }
}
