import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../catalog/catalog.ts';
import { prepareInput } from '../catalog/input.ts';
import { loadDefaultCatalog } from '../catalog/load.ts';
import { price } from '../catalog/pricing.ts';
import { JOB_FAILURE_CODES } from '../jobs/failure.ts';
import { allowedMethods, openApiDocument } from './openapi.ts';
import './account/openapi.ts';
import './uploads/openapi.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
const doc = openApiDocument() as any;
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  Object.entries(ops as Record<string, any>).map(([method, op]) => ({ path, method, op })),
);

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

  it("gives each error status its codes as an enum, and a failed job's code the closed set", () => {
    expect(doc.components.schemas.Problem422.properties.code.enum).toEqual(['INVALID_INPUT']);
    expect(doc.components.schemas.Problem405.properties.code.enum).toEqual(['METHOD_NOT_ALLOWED']);
    const ref =
      doc.paths['/v1/jobs/submit'].post.responses['429'].content['application/problem+json'].schema.$ref;
    expect(doc.components.schemas[ref.split('/').at(-1)].properties.code.enum).toEqual([
      'CONCURRENT_JOBS_EXCEEDED',
      'RATE_LIMITED',
    ]);
    const job = doc.paths['/v1/jobs/{jobId}'].get.responses['200'].content['application/json'].schema;
    expect(job.properties.error.anyOf[0].properties.code.enum).toEqual([...JOB_FAILURE_CODES]);
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

  it("shows the spec's three priced cases as examples, priced as submit charges them", () => {
    const body = doc.paths['/v1/jobs/estimate'].post.requestBody.content['application/json'].schema;
    const answer = doc.paths['/v1/jobs/estimate'].post.responses['200'].content['application/json'].schema;
    const priced = body.examples.map((e: { model: string; input: Record<string, unknown> }) => {
      const variant = catalog.variantsBySlug.get(e.model)!;
      return price(variant, prepareInput(variant, e.input));
    });
    expect(priced.map((p: { estimatedCostMicroCents: number }) => p.estimatedCostMicroCents)).toEqual([
      134_000, 241_200, 2_400_000,
    ]);
    expect(answer.examples).toEqual(priced);
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
