import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { REPO_ROOT } from '../dev/controlplane.ts';

/**
 * Keeps src/k8s/types.ts in step with the CRD schemas in crds/: every field of a spec and
 * status, at every depth, exists in both with the same optionality (required in the schema
 * ⇔ not optional in TypeScript). Free-form maps (additionalProperties, preserved unknown
 * fields) are compared as leaves.
 */
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
}

function schemaFields(schema: Schema, prefix: string, out: Map<string, boolean>): void {
  const node = schema.type === 'array' && schema.items ? schema.items : schema;
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = `${prefix}.${name}`;
    out.set(path, (node.required ?? []).includes(name));
    schemaFields(child, path, out);
  }
}

const program = ts.createProgram([join(REPO_ROOT, 'src/k8s/types.ts')], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(join(REPO_ROOT, 'src/k8s/types.ts'))!;

function declared(name: string): ts.Type {
  let found: ts.Type | undefined;
  ts.forEachChild(source, (n) => {
    if ((ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) && n.name.text === name)
      found = checker.getTypeAtLocation(n);
  });
  if (!found) throw new Error(`types.ts has no ${name}`);
  return found;
}

function typeFields(type: ts.Type, prefix: string, out: Map<string, boolean>, depth = 0): void {
  let t = checker.getNonNullableType(type);
  if (checker.isArrayType(t)) t = checker.getTypeArguments(t as ts.TypeReference)[0]!;
  // Records (string index signatures) and primitives are leaves, like free-form schema maps.
  if (depth > 6 || !(t.flags & ts.TypeFlags.Object) || checker.getIndexInfosOfType(t).length > 0) return;
  for (const prop of checker.getPropertiesOfType(t)) {
    const path = `${prefix}.${prop.name}`;
    out.set(path, !(prop.flags & ts.SymbolFlags.Optional));
    typeFields(checker.getTypeOfSymbol(prop), path, out, depth + 1);
  }
}

const kinds = ['GenerationJob', 'Upload', 'Account', 'ApiKey'] as const;
const files: Record<(typeof kinds)[number], string> = {
  GenerationJob: 'generationjobs.yaml',
  Upload: 'uploads.yaml',
  Account: 'accounts.yaml',
  ApiKey: 'apikeys.yaml',
};

describe('types.ts matches the CRD schemas', () => {
  it.each(kinds)('%s: the same fields, equally required, at every depth', (kind) => {
    const crd = YAML.parse(readFileSync(join(REPO_ROOT, 'crds', files[kind]), 'utf8'));
    const root = crd.spec.versions[0].schema.openAPIV3Schema as Schema;
    for (const part of ['spec', 'status'] as const) {
      const fromSchema = new Map<string, boolean>();
      schemaFields(root.properties![part]!, part, fromSchema);
      const fromTypes = new Map<string, boolean>();
      typeFields(declared(`${kind}${part === 'spec' ? 'Spec' : 'Status'}`), part, fromTypes);
      expect(Object.fromEntries([...fromTypes].sort())).toEqual(Object.fromEntries([...fromSchema].sort()));
    }
  });
});
