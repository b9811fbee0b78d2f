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

/** The document's base URI inside the validator: refs (`#/components/…`) resolve against it. */
const BASE = 'https://genjobs.invalid/openapi.json';
/** A JSON pointer to `segments` as a URI fragment. */
const pointer = (...segments: string[]) =>
  `#/${segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;

let ajv: Ajv2020 | undefined;

/**
 * The OpenAPI document in a validator. Its answers are closed here (no field the
 * document does not name), while the served document leaves them open for clients.
 */
function documentValidator(): Ajv2020 {
  if (ajv) return ajv;
  const doc = openApiDocument({ closedAnswers: true }) as Record<string, unknown>;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: BASE, paths: doc.paths, webhooks: doc.webhooks, components: doc.components });
  return ajv;
}

/** A validator of the named schema of the document (`Job`, `Upload`, …). */
export function componentValidator(name: string): ValidateFunction {
  return schemaValidator('components', 'schemas', name);
}

/** A validator of the schema at a path into the document (`paths`, `/v1/jobs/submit`, `post`, …). */
export function schemaValidator(...segments: string[]): ValidateFunction {
  return documentValidator().compile({ $ref: `${BASE}${pointer(...segments)}` });
}

/** The OpenAPI document compiled into one validator per operation and status. */
function compiled(): Route[] {
  if (routes) return routes;
  const validator = documentValidator();
  const doc = openApiDocument() as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >;
  };
  routes = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const responses = new Map<string, ValidateFunction>();
      for (const [status, r] of Object.entries(op.responses)) {
        const media = Object.keys(r.content ?? {})[0];
        if (!media) continue; // a status without a body (204)
        const at = pointer('paths', path, method, 'responses', status, 'content', media, 'schema');
        responses.set(status, validator.compile({ $ref: `${BASE}${at}` }));
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
