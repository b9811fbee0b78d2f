/**
 * Building a catalog from its sources. All or nothing: one problem anywhere and no catalog
 * is returned, so the caller keeps serving the last good one and reports the problems
 * against the ConfigMaps they name (Event, metric, log line).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Catalog } from './catalog.ts';
import { compileInputSchemas, indexCatalog } from './compile.ts';
import { mergeDocuments } from './merge.ts';
import { type CatalogProblem, type CatalogSource, parseSource, type SourcedDocument } from './parse.ts';
import { checkReferences } from './references.ts';

export type { CatalogProblem, CatalogSource };

export type CatalogBuildResult = { ok: true; catalog: Catalog } | { ok: false; errors: CatalogProblem[] };

/**
 * Merges several sources (one per ConfigMap) into one validated catalog. The result does
 * not depend on the order of `sources`: they are taken by name, their data keys by key.
 *
 * Problems come in stages, so one mistake does not cascade: YAML syntax and the document
 * schema first; then duplicates, references and pricing coverage, together with every
 * inputSchema compiled by ajv.
 */
export function buildCatalog(sources: CatalogSource[]): CatalogBuildResult {
  const ordered = [...sources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const documents: SourcedDocument[] = [];
  const parseProblems: CatalogProblem[] = [];
  for (const source of ordered) {
    const parsed = parseSource(source);
    documents.push(...parsed.documents);
    parseProblems.push(...parsed.problems);
  }
  if (parseProblems.length > 0) return { ok: false, errors: parseProblems };

  const { merged, problems } = mergeDocuments(documents);
  problems.push(...checkReferences(merged));
  const compiled = compileInputSchemas(merged);
  problems.push(...compiled.problems);
  if (problems.length > 0) return { ok: false, errors: problems };
  return { ok: true, catalog: indexCatalog(merged, compiled.validators) };
}

/** The default catalog shipped with the service (dev mode; the Helm chart's initial ConfigMap). */
export const DEFAULT_CATALOG_PATH = fileURLToPath(new URL('./default-catalog.yaml', import.meta.url));

/** The default catalog file as a source named `default-catalog`, to merge or to publish as a ConfigMap. */
export async function readDefaultCatalogSource(path = DEFAULT_CATALOG_PATH): Promise<CatalogSource> {
  return { name: 'default-catalog', documents: { 'default-catalog.yaml': await readFile(path, 'utf8') } };
}

/**
 * Builds the default catalog.
 * @throws Error listing every problem; the shipped file is tested, so this means a broken build.
 */
export async function loadDefaultCatalog(path = DEFAULT_CATALOG_PATH): Promise<Catalog> {
  const result = buildCatalog([await readDefaultCatalogSource(path)]);
  if (!result.ok) {
    throw new Error(`default catalog is invalid:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  }
  return result.catalog;
}
