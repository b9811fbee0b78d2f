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
}

/**
 * Keeps the serving catalog in step with the catalog ConfigMaps: every change rebuilds
 * the whole catalog from all of them; a build that fails leaves the last good catalog in
 * service and is reported as a Warning Event on each ConfigMap at fault, a metric and a
 * log line. The swap is a single reference assignment, so a request sees one catalog.
 */
export class CatalogWatcher {
  private readonly o: CatalogWatcherOptions;
  private catalog: Catalog | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastProblems = '';

  constructor(options: CatalogWatcherOptions) {
    this.o = options;
    options.informer.on(() => this.schedule());
  }

  /** The catalog in service; empty until the first good build. */
  get current(): Catalog | undefined {
    return this.catalog;
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
        void this.report(configMaps, result.errors);
        result = healthy;
      }
    }
    if (result.ok) {
      this.catalog = result.catalog;
      this.lastProblems = '';
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

  private async report(configMaps: ConfigMap[], problems: CatalogProblem[]): Promise<void> {
    for (const cm of configMaps) {
      const mine = problems.filter((p) => p.source === cm.metadata?.name);
      if (mine.length === 0) continue;
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
