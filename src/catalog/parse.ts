/**
 * Reading one catalog source (a ConfigMap's data) into validated documents, with problems
 * located as precisely as the YAML allows: data key, line, and the path inside the document.
 */
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { type CatalogDocument, catalogDocumentSchema } from './schema.ts';

/** One thing wrong with the catalog, attributed to the ConfigMap it came from. */
export interface CatalogProblem {
  /** The ConfigMap name (where an Event belongs). */
  source: string;
  /** Starts with the data key, and the line when known. */
  message: string;
}

/** A catalog source: a ConfigMap's name and its data (data key → YAML text). */
export interface CatalogSource {
  name: string;
  documents: Record<string, string>;
}

/** A validated document and where it came from. */
export interface SourcedDocument {
  source: string;
  key: string;
  document: CatalogDocument;
}

/**
 * Parses every data key of a source (in key order) as YAML, possibly several documents
 * separated by `---`, and validates each against the catalog document schema. Anchors,
 * aliases and `<<` merge keys work, so variants can share a runtime block.
 */
export function parseSource(source: CatalogSource): {
  documents: SourcedDocument[];
  problems: CatalogProblem[];
} {
  const documents: SourcedDocument[] = [];
  const problems: CatalogProblem[] = [];
  const report = (message: string) => problems.push({ source: source.name, message });
  for (const key of Object.keys(source.documents).sort()) {
    const lineCounter = new LineCounter();
    const yamlDocs = parseAllDocuments(source.documents[key] ?? '', {
      lineCounter,
      prettyErrors: false,
      merge: true,
      uniqueKeys: true,
    });
    for (const [index, doc] of yamlDocs.entries()) {
      const where = (offset?: number) => {
        const part = yamlDocs.length > 1 ? ` (document ${index + 1})` : '';
        if (offset === undefined) return `${key}${part}`;
        const { line, col } = lineCounter.linePos(offset);
        return `${key}${part}, line ${line}, column ${col}`;
      };
      if (doc.errors.length > 0) {
        for (const error of doc.errors) report(`${where(error.pos[0])}: ${error.message}`);
        continue;
      }
      let data: unknown;
      try {
        data = doc.toJS({ maxAliasCount: 1000 }) ?? {};
      } catch (error) {
        report(`${where()}: ${(error as Error).message}`);
        continue;
      }
      const parsed = catalogDocumentSchema.safeParse(data, { reportInput: true });
      if (parsed.success) {
        documents.push({ source: source.name, key, document: parsed.data });
        continue;
      }
      for (const issue of parsed.error.issues) {
        report(
          `${where(offsetOf(doc, issue.path))}: ${describePath(issue.path, data)}: ${issueMessage(issue)}`,
        );
      }
    }
  }
  return { documents, problems };
}

/** zod's message, said the way a YAML author thinks of it. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_key') return `key ${issue.issues.map((inner) => inner.message).join('; ')}`;
  return issue.message;
}

/** The start of the deepest YAML node on the issue's path that exists. */
function offsetOf(doc: Document, path: readonly PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) return range[0];
  }
  return undefined;
}

/** `models[0] (genjobs/reference-image).variants.text-to-image.pricing`, or `(document)` for the root. */
export function describePath(path: readonly PropertyKey[], data?: unknown): string {
  if (path.length === 0) return '(document)';
  let text = '';
  for (const [i, part] of path.entries()) {
    text += typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`;
    if (i === 1 && path[0] === 'models' && typeof part === 'number') text += modelLabel(data, part);
  }
  return text;
}

function modelLabel(data: unknown, index: number): string {
  const models = (data as { models?: unknown } | undefined)?.models;
  const model = Array.isArray(models)
    ? (models[index] as { provider?: unknown; name?: unknown } | undefined)
    : undefined;
  return typeof model?.provider === 'string' && typeof model.name === 'string'
    ? ` (${model.provider}/${model.name})`
    : '';
}
