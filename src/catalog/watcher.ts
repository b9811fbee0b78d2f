import type { ConfigMap } from '../k8s/configmaps.ts';
import type { EventRecorder } from '../k8s/events.ts';
import type { Informer } from '../k8s/informer.ts';
import type { Logger } from '../log.ts';
import type { Catalog } from './catalog.ts';
import { buildCatalog, type CatalogProblem } from './load.ts';

/** The label that makes a ConfigMap part of the catalog. */
export const CATALOG_LABEL = 'genjobs.io/catalog';
export const CATALOG_SELECTOR = `${CATALOG_LABEL}=true`;

export interface CatalogWatcherOptions {
  informer: Informer<ConfigMap>;
  events?: EventRecorder;
  log: Logger;
  onReload?: (result: 'ok' | 'error', catalog: Catalog | undefined) => void;
  /** Changes arriving within this window are applied together. */
  debounceMs?: number;
  /**
   * How long the queued jobs of a model that a valid catalog no longer lists wait (in case it
   * comes back) before they may fail (default 10 minutes).
   */
  removalGraceMs?: number;
  now?: () => number;
}

/** How often a job waiting for a catalog that has not loaded yet is looked at again. */
export const NO_CATALOG_RETRY_MS = 5_000;

/**
 * Keeps the serving catalog in step with the catalog ConfigMaps: every change rebuilds
 * the whole catalog from all of them; a build that fails leaves the last good catalog in
 * service and is reported as a Warning Event on each ConfigMap at fault, a metric and a
 * log line. The swap is a single reference assignment, so a request sees one catalog.
 *
 * A catalog that is briefly absent (its ConfigMaps deleted, or emptied, while being
 * replaced) is not a catalog with no models: the last good one stays in service, so what
 * is queued is paused at worst, never failed. A model that a valid catalog stops listing
 * is remembered for a grace ({@link pauseFor}), so its queued jobs wait for it to return.
 */
export class CatalogWatcher {
  private readonly o: CatalogWatcherOptions;
  private catalog: Catalog | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastProblems = '';
  /** The ConfigMaps the last refused reload blamed (told again, Normal, once a reload is good). */
  private blamed: ConfigMap[] = [];
  /** Models the catalog in service stopped listing, and when (this process's memory only). */
  private readonly removedAt = new Map<string, number>();

  constructor(options: CatalogWatcherOptions) {
    this.o = options;
    options.informer.on(() => this.schedule());
  }

  /** The catalog in service; undefined until the first good build that lists a model. */
  get current(): Catalog | undefined {
    return this.catalog;
  }

  /**
   * How long a queued job of a model missing from the catalog should wait before it is
   * looked at again, or undefined when it may fail now: it waits while no catalog has
   * loaded yet, and for the rest of the grace after its model was removed.
   */
  pauseFor(slug: string): number | undefined {
    if (!this.catalog) return NO_CATALOG_RETRY_MS;
    if (this.catalog.variantsBySlug.has(slug)) return undefined;
    const removed = this.removedAt.get(slug);
    if (removed === undefined) return undefined;
    const left = removed + (this.o.removalGraceMs ?? 10 * 60_000) - this.now();
    return left > 0 ? left : undefined;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  async start(): Promise<void> {
    await this.o.informer.start();
    await this.o.informer.waitForSync();
    this.reload();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.o.informer.stop();
  }

  private schedule(): void {
    if (!this.o.informer.synced) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.reload(), this.o.debounceMs ?? 100);
    this.timer.unref();
  }

  /** Rebuilds from the cached ConfigMaps now. */
  reload(): void {
    const configMaps = [...this.o.informer.list()].sort((a, b) =>
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
    const sources = configMaps.map((cm) => ({
      name: cm.metadata?.name ?? '',
      documents: { ...(cm.data ?? {}) },
    }));
    let result = buildCatalog(sources);
    if (!result.ok && !this.catalog) {
      // Nothing in service yet: serve what the healthy ConfigMaps describe rather than nothing.
      const bad = new Set(result.errors.map((e) => e.source));
      const healthy = buildCatalog(sources.filter((s) => !bad.has(s.name)));
      if (healthy.ok) {
        this.o.log.error({ problems: result.errors }, 'catalog ConfigMaps rejected; serving the others');
        this.o.onReload?.('error', undefined);
        void this.report(configMaps, result.errors);
        result = healthy;
      }
    }
    if (result.ok && result.catalog.variants.length === 0) {
      // No ConfigMap (or none with a model): a catalog being replaced, not a decision to
      // serve nothing. Failing every queued job for it would be the wrong way round.
      this.o.onReload?.('error', this.catalog);
      this.o.log.warn(
        { configMaps: sources.map((s) => s.name) },
        `the catalog ConfigMaps list no model; ${this.catalog ? 'the last good catalog stays in service' : 'waiting for one'}`,
      );
      return;
    }
    if (result.ok) {
      this.noteRemovals(result.catalog);
      this.catalog = result.catalog;
      this.lastProblems = '';
      // The CatalogInvalid Warning stays on its ConfigMap for an hour: say it is over.
      for (const cm of this.blamed.splice(0))
        void this.o.events?.record(
          { apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata?.name ?? '', uid: cm.metadata?.uid },
          'Normal',
          'CatalogLoaded',
          'the catalog reloaded: the problems reported before are gone',
        );
      this.o.log.info(
        { configMaps: sources.map((s) => s.name), variants: result.catalog.variants.length },
        'catalog loaded',
      );
      this.o.onReload?.('ok', result.catalog);
      return;
    }
    this.o.onReload?.('error', this.catalog);
    const fingerprint = JSON.stringify(result.errors);
    this.o.log.error(
      { problems: result.errors, keeping: this.catalog ? 'last good catalog' : 'no catalog yet' },
      'catalog rejected',
    );
    // Report each distinct failure once, not on every unrelated change.
    if (fingerprint !== this.lastProblems) {
      this.lastProblems = fingerprint;
      void this.report(configMaps, result.errors);
    }
  }

  private noteRemovals(next: Catalog): void {
    const now = this.now();
    const grace = this.o.removalGraceMs ?? 10 * 60_000;
    for (const [slug, at] of this.removedAt) if (now - at > grace) this.removedAt.delete(slug);
    for (const slug of this.catalog?.variantsBySlug.keys() ?? []) {
      if (!next.variantsBySlug.has(slug) && !this.removedAt.has(slug)) {
        this.removedAt.set(slug, now);
        this.o.log.warn(
          { model: slug, graceMinutes: grace / 60_000 },
          'a model left the catalog: its queued jobs wait for it, then fail MODEL_UNAVAILABLE when the grace ends',
        );
      }
    }
    for (const slug of next.variantsBySlug.keys()) {
      if (this.removedAt.delete(slug)) this.o.log.info({ model: slug }, 'a model is back in the catalog');
    }
  }

  private async report(configMaps: ConfigMap[], problems: CatalogProblem[]): Promise<void> {
    for (const cm of configMaps) {
      const mine = problems.filter((p) => p.source === cm.metadata?.name);
      if (mine.length === 0) continue;
      if (!this.blamed.some((b) => b.metadata?.uid === cm.metadata?.uid)) this.blamed.push(cm);
      const message = `catalog not reloaded; the previous catalog stays in service: ${mine.map((p) => p.message).join('; ')}`;
      await this.o.events?.record(
        { apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata?.name ?? '', uid: cm.metadata?.uid },
        'Warning',
        'CatalogInvalid',
        message,
      );
    }
  }
}
