import { type KubernetesObject, ListWatch, Watch } from '@kubernetes/client-node';

/** Anything with a name: custom resources (raw JSON) and client-node's typed objects alike. */
export type Named = { metadata?: { name?: string } };

import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';

export type EventType = 'add' | 'update' | 'delete';
export type Listener<T> = (type: EventType, obj: T) => void;
/**
 * One full list, in client-node's shape: the watch that follows starts at
 * `metadata.resourceVersion`. Without it the watch starts from "now", and an object deleted
 * between the list and that watch stays in the cache for good (a list page of ours carries
 * the version at its top level: see cr-informer.ts).
 */
type Lister<T> = () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>;

/** What an informer's cache is at, for an operator's look at a process that seems stuck. */
export interface InformerStats {
  synced: boolean;
  objects: number;
  /** Where the watch resumes from: the last event's (or list's) resourceVersion. */
  resourceVersion: string;
  /** When the cache last changed (an add, update or delete delivered). */
  lastEventAt?: string;
}

export interface InformerOptions<T> {
  /** REST path of the collection to watch. */
  path: string;
  list: Lister<T>;
  labelSelector?: string;
  log: Logger;
  /** Backoff after an error: first delay and cap, in ms. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * A list+watch cache of one collection. client-node's informer relists by itself on 410
 * Gone but stops on any other error (an apiserver restart, a dropped connection): this
 * wrapper restarts it with exponential backoff, from the last resourceVersion it saw, so
 * changes made while it was down are delivered when it comes back. Cached objects are
 * shared: callers must never mutate them. Secondary indexes give O(1) look-ups by a
 * derived key (an ApiKey by its hash, a job by its account).
 */
export class Informer<T extends Named> {
  private readonly inner: ListWatch<T & KubernetesObject>;
  private readonly opts: InformerOptions<T>;
  private readonly listeners: Listener<T>[] = [];
  private readonly indexers = new Map<string, (obj: T) => string[]>();
  private readonly indexes = new Map<string, Map<string, Map<string, T>>>();
  private readonly indexedKeys = new Map<string, Map<string, string[]>>();
  private stopped = true;
  private backoffMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private syncedFlag = false;
  private syncWaiters: Array<() => void> = [];
  private lastEventAt: number | undefined;

  constructor(kube: Kube, opts: InformerOptions<T>) {
    this.opts = opts;
    this.backoffMs = opts.minBackoffMs ?? 500;
    const list = async () => {
      const page = await opts.list();
      for (const item of page.items) stripManagedFields(item);
      // The cache is complete once ListWatch has stored this page, which it does
      // synchronously right after this promise settles; the watch request that follows
      // may wait a while (a new CRD's watch cache initialising) without delaying readiness.
      setImmediate(() => this.markSynced());
      return page;
    };
    this.inner = new ListWatch<T & KubernetesObject>(
      opts.path,
      new LeanWatch(kube.kc),
      list as never,
      false,
      opts.labelSelector,
    );
    this.inner.on('add', (obj) => this.emit('add', obj));
    this.inner.on('update', (obj) => this.emit('update', obj));
    this.inner.on('delete', (obj) => this.emit('delete', obj));
    this.inner.on('error', (err) => this.onError(err));
  }

  /** True once the first full list has been loaded. */
  get synced(): boolean {
    return this.syncedFlag;
  }

  stats(): InformerStats {
    return {
      synced: this.syncedFlag,
      objects: this.inner.list().length,
      resourceVersion: this.inner.latestResourceVersion(),
      ...(this.lastEventAt !== undefined ? { lastEventAt: new Date(this.lastEventAt).toISOString() } : {}),
    };
  }

  on(listener: Listener<T>): void {
    this.listeners.push(listener);
  }

  /** Adds a secondary index; call before start. */
  addIndex(name: string, keysOf: (obj: T) => string[]): void {
    this.indexers.set(name, keysOf);
    this.indexes.set(name, new Map());
    this.indexedKeys.set(name, new Map());
  }

  /** How many objects an index holds under a value, without copying them. */
  countByIndex(name: string, value: string): number {
    return this.indexes.get(name)?.get(value)?.size ?? 0;
  }

  byIndex(name: string, value: string): T[] {
    const bucket = this.indexes.get(name)?.get(value);
    return bucket ? [...bucket.values()] : [];
  }

  get(name: string): T | undefined {
    return this.inner.get(name, this.namespaceOf());
  }

  list(): readonly T[] {
    return this.inner.list();
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.run();
  }

  private async run(): Promise<void> {
    try {
      // Resolves once the list (when needed) and the watch request are made; a failed
      // list is reported through the error event and leaves no resourceVersion.
      await this.inner.start();
    } catch (err) {
      this.onError(err);
      return;
    }
    if (this.inner.latestResourceVersion()) this.markSynced();
  }

  async waitForSync(timeoutMs = 30_000): Promise<void> {
    if (this.syncedFlag) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`cache of ${this.opts.path} not synced after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.syncWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.inner.stop();
  }

  private namespaceOf(): string | undefined {
    return /\/namespaces\/([^/]+)\//.exec(this.opts.path)?.[1];
  }

  private markSynced(): void {
    this.backoffMs = this.opts.minBackoffMs ?? 500;
    if (this.syncedFlag) return;
    this.syncedFlag = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  private onError(err: unknown): void {
    if (this.stopped) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
    this.opts.log.warn(
      { path: this.opts.path, err: String(err), retryInMs: delay },
      'watch failed; restarting',
    );
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void this.run();
    }, delay);
    this.retryTimer.unref();
  }

  private emit(type: EventType, obj: T): void {
    this.lastEventAt = Date.now();
    this.reindex(type, obj);
    for (const l of this.listeners) l(type, obj);
  }

  private reindex(type: EventType, obj: T): void {
    const id = obj.metadata?.name ?? '';
    for (const [name, keysOf] of this.indexers) {
      const index = this.indexes.get(name)!;
      const known = this.indexedKeys.get(name)!;
      for (const old of known.get(id) ?? []) {
        index.get(old)?.delete(id);
        if (index.get(old)?.size === 0) index.delete(old);
      }
      if (type === 'delete') {
        known.delete(id);
        continue;
      }
      const keys = keysOf(obj);
      known.set(id, keys);
      for (const k of keys) {
        const bucket = index.get(k) ?? new Map<string, T>();
        index.set(k, bucket);
        bucket.set(id, obj);
      }
    }
  }
}

/**
 * Cached objects leave out metadata.managedFields, as controller-runtime's caches do: the
 * server-side apply bookkeeping is read by nothing here and was more than half of a cached
 * job's heap (bench: memory). An update built from a cached object omits the field, which the
 * apiserver reads as "unchanged".
 */
class LeanWatch extends Watch {
  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>): Promise<AbortController> {
    return super.watch(path, query, (phase, obj, raw) => callback(phase, stripManagedFields(obj), raw), done);
  }
}

function stripManagedFields<O>(obj: O): O {
  const meta = (obj as { metadata?: { managedFields?: unknown } } | undefined)?.metadata;
  if (meta && 'managedFields' in meta) delete meta.managedFields;
  return obj;
}
