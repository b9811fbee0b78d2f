/**
 * Merging the documents of every catalog ConfigMap into one set of declarations. Nothing
 * is overridden: an id declared twice (a provider, category, capability group, or a model's
 * `provider/name`, which fixes all its three-part slugs) is refused, and the problem is
 * reported against both ConfigMaps, naming both, since either may be the one to fix.
 */
import type { CatalogProblem, SourcedDocument } from './parse.ts';
import type { CapabilityGroup, Category, ModelSpec, Provider } from './schema.ts';

/** A declaration and where it was made. */
export interface Located<T> {
  value: T;
  source: string;
  key: string;
  /** Where in the document, e.g. `models[2] (genjobs/reference-video)`. */
  path: string;
}

/** Every declaration of the catalog, in merge order. */
export interface MergedCatalog {
  providers: Located<Provider>[];
  categories: Located<Category>[];
  capabilityGroups: Located<CapabilityGroup>[];
  models: Located<ModelSpec>[];
}

/** Documents must come in merge order (ConfigMaps by name, keys by name, documents in order). */
export function mergeDocuments(documents: SourcedDocument[]): {
  merged: MergedCatalog;
  problems: CatalogProblem[];
} {
  const problems: CatalogProblem[] = [];
  const merged: MergedCatalog = { providers: [], categories: [], capabilityGroups: [], models: [] };
  const providers = new Map<string, Located<Provider>>();
  const categories = new Map<string, Located<Category>>();
  const groups = new Map<string, Located<CapabilityGroup>>();
  const models = new Map<string, Located<ModelSpec>>();

  function add<T>(
    seen: Map<string, Located<T>>,
    into: Located<T>[],
    what: string,
    id: string,
    item: Located<T>,
  ): void {
    const first = seen.get(id);
    if (!first) {
      seen.set(id, item);
      into.push(item);
      return;
    }
    const message = `${what} "${id}" is declared twice: in ConfigMap "${first.source}" (${first.key}, ${first.path}) and in ConfigMap "${item.source}" (${item.key}, ${item.path})`;
    problems.push({ source: first.source, message });
    if (item.source !== first.source) problems.push({ source: item.source, message });
  }

  for (const { source, key, document } of documents) {
    const at = <T>(value: T, path: string): Located<T> => ({ value, source, key, path });
    for (const [i, p] of document.providers.entries()) {
      add(providers, merged.providers, 'provider', p.id, at(p, `providers[${i}]`));
    }
    for (const [i, c] of document.categories.entries()) {
      add(categories, merged.categories, 'category', c.id, at(c, `categories[${i}]`));
    }
    for (const [i, g] of document.capabilityGroups.entries()) {
      add(groups, merged.capabilityGroups, 'capability group', g.id, at(g, `capabilityGroups[${i}]`));
    }
    for (const [i, m] of document.models.entries()) {
      const slug = `${m.provider}/${m.name}`;
      add(models, merged.models, 'model', slug, at(m, `models[${i}] (${slug})`));
    }
  }
  return { merged, problems };
}
