import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/api/openapi.ts';

interface Route {
  method: string;
  pattern: RegExp;
  specificity: number;
  responses: Map<string, ValidateFunction>;
}

let routes: Route[] | undefined;

/** The OpenAPI document compiled into one validator per operation and status. */
function compiled(): Route[] {
  if (routes) return routes;
  const doc = openApiDocument() as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>
    >;
    components: { schemas: Record<string, object> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'components', $defs: doc.components.schemas }, 'components');
  routes = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const responses = new Map<string, ValidateFunction>();
      for (const [status, r] of Object.entries(op.responses)) {
        if (!r.content) continue; // a status without a body (204)
        const schema = Object.values(r.content)[0]?.schema as Record<string, unknown>;
        const ref =
          typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(\w+)$/.exec(schema.$ref) : null;
        const resolved = ref ? doc.components.schemas[ref[1] ?? '']! : schema;
        responses.set(status, ajv.compile(resolved));
      }
      // A {slug} holds slashes; other parameters are one segment.
      const source = path.replace(/\{slug\}/g, '(.+)').replace(/\{\w+\}/g, '([^/]+)');
      routes.push({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${source}$`),
        specificity: -path.split('{').length,
        responses,
      });
    }
  }
  routes.sort((a, b) => b.specificity - a.specificity);
  return routes;
}

/**
 * Checks a response against the OpenAPI document: an operation the document does not
 * know, a status it does not list, or a body off its schema is an error. Paths outside
 * /v1 (files, health) are not part of the document.
 */
export function checkContract(method: string, url: string, status: number, body: unknown): void {
  const path = new URL(url).pathname;
  if (!path.startsWith('/v1/') || path === '/v1/openapi.json') return;
  const route = compiled().find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
  if (!route) throw new Error(`contract: ${method} ${path} is not in the OpenAPI document`);
  const validate = route.responses.get(String(status));
  if (!validate)
    throw new Error(
      `contract: ${method} ${path} answered ${status}, which the OpenAPI document does not list`,
    );
  if (!validate(body)) {
    throw new Error(
      `contract: ${method} ${path} ${status} body does not match: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
    );
  }
}
