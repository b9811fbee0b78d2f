import { beforeAll, describe, expect, it } from 'vitest';
import { componentValidator, schemaValidator } from '../../test/support/contract.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { prepareInput } from '../catalog/input.ts';
import { listApiModels, listProviderModels } from '../catalog/listing.ts';
import { loadDefaultCatalog } from '../catalog/load.ts';
import { price } from '../catalog/pricing.ts';
import {
  getCatalogModel,
  getCatalogProvider,
  listCapabilityGroups,
  listCatalogModels,
  listCatalogProviders,
  listCategories,
} from '../catalog/views.ts';
import { JOB_FAILURE_CODES } from '../jobs/failure.ts';
import { CATALOG_EXAMPLES } from './catalog/examples.ts';
import { allowedMethods, openApiDocument } from './openapi.ts';
import './account/openapi.ts';
import './uploads/openapi.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
const doc = openApiDocument() as any;
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  Object.entries(ops as Record<string, any>).map(([method, op]) => ({ path, method, op })),
);

/** A schema of the document with a top-level $ref followed into components. */
// biome-ignore lint/suspicious/noExplicitAny: as above.
const resolved = (schema: any) =>
  schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadDefaultCatalog();
});

describe('the OpenAPI document', () => {
  it('names every operation with a unique operationId', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('types its numbers for every generator: inclusive bounds, int64 past 32 bits, double', () => {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const schemas: any[] = [];
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const walk = (node: any) => {
      if (node === null || typeof node !== 'object') return;
      if (node.type === 'integer' || node.type === 'number') schemas.push(node);
      for (const value of Object.values(node)) walk(value);
    };
    walk(doc);
    expect(schemas.length).toBeGreaterThan(20);
    expect(schemas.filter((n) => 'exclusiveMinimum' in n || 'exclusiveMaximum' in n)).toEqual([]);
    for (const n of schemas.filter((n) => n.type === 'integer')) {
      expect(n.format).toBe(n.maximum === undefined || n.maximum > 2 ** 31 - 1 ? 'int64' : undefined);
    }
    for (const n of schemas.filter((n) => n.type === 'number')) expect(n.format).toBe('double');
    expect(doc.components.schemas.Job.properties.costMicroCents).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
    expect(doc.components.schemas.Presign.properties.maxSize).toMatchObject({ minimum: 1, format: 'int64' });
  });

  it('has no boolean with one value (a const or enum), which the default Java generator cannot compile', () => {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const booleans: any[] = [];
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const walk = (node: any) => {
      if (node === null || typeof node !== 'object') return;
      if (node.type === 'boolean') booleans.push(node);
      for (const value of Object.values(node)) walk(value);
    };
    walk(doc);
    expect(booleans.filter((b) => 'const' in b || 'enum' in b)).toEqual([]);
    const presigned = resolved(
      doc.paths['/v1/uploads/presign'].post.responses['200'].content['application/json'].schema,
    );
    expect(presigned.properties.success).toMatchObject({
      type: 'boolean',
      description: expect.stringContaining('always true'),
    });
  });

  it('lists no 401 where a key that fails is ignored (a model detail)', () => {
    const detail = operations.find(({ op }) => op.operationId === 'getCatalogModel')!.op;
    expect(Object.keys(detail.responses)).not.toContain('401');
  });

  it('declares the eight upload content types as an enum', () => {
    const body = doc.paths['/v1/uploads/presign'].post.requestBody.content['application/json'].schema;
    expect(body.properties.contentType.enum).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'image/gif',
      'video/mp4',
      'video/webm',
      'audio/mpeg',
      'audio/wav',
    ]);
  });

  it('groups operations by tag and declares on every answer its x-request-id, and a default problem', () => {
    type Answer = { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> };
    type Op = { tags: string[]; responses: Record<string, Answer> };
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
      for (const op of Object.values(methods)) {
        expect([path, op.tags]).toEqual([
          path,
          [expect.stringMatching(/^(jobs|uploads|catalog|models|account)$/)],
        ]);
        expect(op.responses.default?.content?.['application/problem+json']?.schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
        for (const [status, answer] of Object.entries(op.responses))
          expect([path, status, Object.keys(answer.headers ?? {})]).toEqual([
            path,
            status,
            expect.arrayContaining(['x-request-id']),
          ]);
      }
    }
  });

  it("gives each error status its codes as an enum, and a failed job's code the closed set", () => {
    expect(doc.components.schemas.Problem422.properties.code.enum).toEqual(['INVALID_INPUT']);
    expect(doc.components.schemas.Problem405.properties.code.enum).toEqual(['METHOD_NOT_ALLOWED']);
    const ref =
      doc.paths['/v1/jobs/submit'].post.responses['429'].content['application/problem+json'].schema.$ref;
    expect(doc.components.schemas[ref.split('/').at(-1)].properties.code.enum).toEqual([
      'CONCURRENT_JOBS_EXCEEDED',
      'RATE_LIMITED',
    ]);
    const job = resolved(
      doc.paths['/v1/jobs/{jobId}'].get.responses['200'].content['application/json'].schema,
    );
    expect(resolved(job.properties.error.anyOf[0]).properties.code.enum).toEqual([...JOB_FAILURE_CODES]);
  });

  it('marks the optional fields nullable', () => {
    const submit = doc.paths['/v1/jobs/submit'].post.requestBody.content['application/json'].schema;
    const estimate = doc.paths['/v1/jobs/estimate'].post.requestBody.content['application/json'].schema;
    for (const field of [
      submit.properties.version,
      submit.properties.webhookUrl,
      estimate.properties.input,
    ]) {
      expect(field.anyOf).toContainEqual({ type: 'null' });
    }
  });

  it('gives every named answer and every request body examples that the schema holds true, closed to other fields', () => {
    // Without one Swagger UI and generators make values up from the schema: a status of
    // -9007199254740991, a filename drawn from its pattern, a pending job with outputs.
    const parts = new Set(['JobOutput', 'JobError']); // shown inside Job's examples
    for (const [name, schema] of Object.entries<{ examples?: unknown[] }>(doc.components.schemas)) {
      if (parts.has(name)) continue;
      const validate = componentValidator(name);
      expect([name, schema.examples?.length ?? 0]).not.toEqual([name, 0]);
      for (const example of schema.examples ?? []) {
        expect([name, validate(example), validate.errors]).toEqual([name, true, null]);
      }
    }
    const bodies = operations.filter(({ op }) => op.requestBody);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const { path, method, op } of bodies) {
      const at = ['paths', path, method, 'requestBody', 'content', 'application/json', 'schema'];
      const validate = schemaValidator(...at);
      const examples: unknown[] = resolved(op.requestBody.content['application/json'].schema).examples ?? [];
      expect([path, examples.length]).not.toEqual([path, 0]);
      for (const example of examples)
        expect([path, validate(example), validate.errors]).toEqual([path, true, null]);
    }
  });

  it("shows the shipped catalog's own answers as the catalog examples", () => {
    const account = { spec: {} };
    const provider = getCatalogProvider(catalog, 'genjobs');
    const apiModels = listApiModels(catalog, account);
    const providerModels = listProviderModels(catalog, 'genjobs', account);
    // JSON both: the examples are plain data, the answers may hold frozen views.
    expect(JSON.parse(JSON.stringify(CATALOG_EXAMPLES))).toEqual(
      JSON.parse(
        JSON.stringify({
          item: listCatalogModels(catalog)[0],
          detail: getCatalogModel(catalog, 'genjobs/reference-image/text-to-image'),
          provider: listCatalogProviders(catalog)[0],
          providerDetail: { ...provider, models: provider.models.slice(0, 1) },
          group: listCapabilityGroups(catalog)[0],
          category: listCategories(catalog)[0],
          apiModels: { models: apiModels.models.slice(0, 1) },
          providerModels: { ...providerModels, models: providerModels.models.slice(0, 1) },
        }),
      ),
    );
  });

  it("shows the spec's three priced cases as examples, priced as submit charges them", () => {
    const body = doc.paths['/v1/jobs/estimate'].post.requestBody.content['application/json'].schema;
    const answer = resolved(
      doc.paths['/v1/jobs/estimate'].post.responses['200'].content['application/json'].schema,
    );
    const priced = body.examples.map((e: { model: string; input: Record<string, unknown> }) => {
      const variant = catalog.variantsBySlug.get(e.model)!;
      return price(variant, prepareInput(variant, e.input));
    });
    expect(priced.map((p: { estimatedCostMicroCents: number }) => p.estimatedCostMicroCents)).toEqual([
      134_000, 241_200, 2_400_000,
    ]);
    expect(answer.examples).toEqual(priced);
  });

  it('names each kind of answer once: a job is the same Job in the GET, the list, the webhook', () => {
    const schemaOf = (path: string, method: string) =>
      doc.paths[path][method].responses['200'].content['application/json'].schema;
    expect(schemaOf('/v1/jobs/{jobId}', 'get')).toEqual({ $ref: '#/components/schemas/Job' });
    expect(doc.components.schemas.JobList.properties.jobs.items).toEqual({
      $ref: '#/components/schemas/Job',
    });
    expect(doc.components.schemas.WebhookEvent.properties.data).toEqual({ $ref: '#/components/schemas/Job' });
    expect(schemaOf('/v1/catalog/models', 'get')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/CatalogModel' },
    });
    expect(schemaOf('/v1/uploads/{id}', 'get')).toEqual({ $ref: '#/components/schemas/UploadResponse' });
    expect(doc.components.schemas.UploadResponse.properties.data).toEqual({
      $ref: '#/components/schemas/Upload',
    });
    expect(schemaOf('/v1/account', 'get')).toEqual({ $ref: '#/components/schemas/Account' });
  });

  it('publishes answers open to added fields and keeps requests closed; the tests see answers closed', () => {
    expect(doc.components.schemas.Job).not.toHaveProperty('additionalProperties');
    expect(doc.components.schemas.Problem422).not.toHaveProperty('additionalProperties');
    const submit = doc.paths['/v1/jobs/submit'].post.requestBody.content['application/json'].schema;
    expect(submit.additionalProperties).toBe(false);
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const closed = openApiDocument({ closedAnswers: true }) as any;
    expect(closed.components.schemas.Job.additionalProperties).toBe(false);
  });

  it('declares the headers a client sends and reads: Idempotency-Key, Idempotent-Replayed, Last-Event-ID', () => {
    const submit = doc.paths['/v1/jobs/submit'].post;
    expect(submit.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    );
    expect(submit.responses['200'].headers['Idempotent-Replayed'].schema).toEqual({
      type: 'string',
      enum: ['true'],
    });
    const events = doc.paths['/v1/jobs/{jobId}/events'].get;
    expect(events.parameters).toContainEqual(
      expect.objectContaining({ name: 'Last-Event-ID', in: 'header' }),
    );
    // A generated client hands the stream over as text; it does not parse it as JSON.
    expect(events.responses['200'].content['text/event-stream'].schema.type).toBe('string');
  });

  it('describes the webhook: its signed headers and a body whose data is a Job', () => {
    const post = doc.webhooks.jobFinished.post;
    expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookEvent',
    });
    expect(post.description).toContain('5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');
  });

  it('names the origin of the document as its server (generated clients need a base URL)', () => {
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  it('gives the slug a pattern that matches real slugs', () => {
    const slug = doc.paths['/v1/catalog/models/{slug}'].get.parameters[0].schema.pattern;
    for (const v of catalog.variants) {
      expect(v.slug).toMatch(new RegExp(slug));
      expect(v.model.slug).toMatch(new RegExp(slug));
    }
  });
});

describe('allowedMethods', () => {
  it.each([
    ['/v1/jobs/abc', ['GET', 'HEAD']],
    ['/v1/jobs/submit', ['POST']],
    ['/v1/uploads/presign', ['POST']],
    ['/v1/jobs/abc/cancel', ['POST']],
    ['/v1/catalog/models/a/b/c', ['GET', 'HEAD']],
    ['/v1/nope', undefined],
    ['/v1/jobs/a/b/c', undefined],
  ])('%s: %j', (path, methods) => {
    expect(allowedMethods(path)).toEqual(methods);
  });
});
