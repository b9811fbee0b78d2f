import { type KubernetesObject, ListWatch, type Watch } from '@kubernetes/client-node';

/** Anything with a name: custom resources (raw JSON) and client-node's typed objects alike. */
export type Named = { metadata?: { name?: string } };

import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { statusCode } from './errors.ts';
import type { KubeHttp } from './http.ts';

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
      new LeanWatch(kube.http) as unknown as Watch,
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
    return [...this.eachByIndex(name, value)];
  }

  /** {@link byIndex} without the copy, for a look at each at once (the next event changes it). */
  eachByIndex(name: string, value: string): Iterable<T> {
    return this.indexes.get(name)?.get(value)?.values() ?? [];
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
    const fields = { path: this.opts.path, err: String(err), retryInMs: delay };
    // 429 "storage is (re)initializing": a kind whose CRD was applied a moment ago (every
    // fresh start); expected, and over in a second or two.
    const code = statusCode(err);
    if (code === 429) this.opts.log.info(fields, 'watch waits for the apiserver to load the kind');
    else if (code === 401 || code === 403)
      // Not a fault that passes: say which grant is missing (a Role edited by hand, an old chart's).
      this.opts.log.warn(
        fields,
        `watch refused (${code}): this process's identity may not list and watch ${this.opts.path}; its Role must grant both (the chart's does); retrying`,
      );
    else this.opts.log.warn(fields, 'watch failed; restarting');
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

/** How long a watch may stay silent before it is ended and made again (client-node's figure). */
const WATCH_IDLE_MS = 30_000;

type WatchCallback = (phase: string, apiObj: unknown, watchObj?: unknown) => void;

/**
 * Watches over the connection's lean client (http.ts): the same contract as client-node's
 * Watch, which ListWatch drives (`done` once, with a TimeoutError after a silent spell, an
 * error with `statusCode` for a refused watch), but each event is one JSON.parse of a line
 * of the body, not a WHATWG stream, a readline interface and a fetch around them: every
 * process handles an event per write of the objects it caches, so this is on every hot path.
 * Cached objects leave out metadata.managedFields, as controller-runtime's caches do: the
 * server-side apply bookkeeping is read by nothing here and was more than half of a cached
 * job's heap (bench: memory). An update built from a cached object omits the field, which
 * the apiserver reads as "unchanged".
 */
class LeanWatch {
  private readonly http: KubeHttp;

  constructor(http: KubeHttp) {
    this.http = http;
  }

  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const idle = () => {
      if (timer) {
        timer.refresh();
        return;
      }
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException('the watch was silent too long', 'TimeoutError'));
      }, WATCH_IDLE_MS);
      timer.unref();
    };
    let finished = false;
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      controller.abort();
      done(err && timedOut ? new DOMException('the watch was silent too long', 'TimeoutError') : err);
    };
    try {
      idle();
      const res = await this.http.stream(path, { ...query, watch: true }, controller.signal);
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {});
        throw Object.assign(new Error(`watch of ${path} answered ${res.statusCode}`), {
          statusCode: res.statusCode,
        });
      }
      idle();
      let pending = '';
      res.body.setEncoding('utf8');
      res.body.on('data', (chunk: string) => {
        idle();
        pending += chunk;
        for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          if (!line) continue;
          let event: { type: string; object: unknown };
          try {
            event = JSON.parse(line);
          } catch {
            continue; // not an event: skipped, as client-node does
          }
          callback(event.type, stripManagedFields(event.object), event);
        }
      });
      res.body.on('error', finish);
      res.body.on('end', () => finish(null));
      res.body.on('close', () => finish(null));
    } catch (err) {
      finish(err);
    }
    return controller;
  }
}

function stripManagedFields<O>(obj: O): O {
  const meta = (obj as { metadata?: { managedFields?: unknown } } | undefined)?.metadata;
  if (meta && 'managedFields' in meta) delete meta.managedFields;
  return obj;
}
