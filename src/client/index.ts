/**
 * `genjobs/client`: a typed client of the genjobs HTTP API. ESM, no dependencies beyond
 * `fetch`, Web Crypto and `AbortSignal.any`, so it runs in Node 20+, Deno, Bun and workers,
 * and in browsers on the api's own origin (the api sends no CORS headers: an API key belongs
 * on a server, not in a page that anyone can read).
 *
 * ```ts
 * import { createClient } from 'genjobs/client';
 * const genjobs = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.GENJOBS_API_KEY });
 * const job = await genjobs.jobs.run('genjobs/reference-image/text-to-image', { prompt: 'a lighthouse' }, {
 *   onUpdate: (j) => console.log(j.status, j.queuePosition, j.estimatedCompletionTime),
 * });
 * console.log(job.output);
 * ```
 */
import type { ClientOptions } from './http.ts';
import { Http } from './http.ts';
import { Jobs } from './jobs.ts';
import { AccountApi, CatalogApi, ModelsApi, UploadsApi } from './resources.ts';
import type { WebhookEvent } from './types.ts';
import { type HeaderSource, type VerifyOptions, verifyWebhook } from './webhooks.ts';

export { GenjobsError, type ProblemBody } from './errors.ts';
export type { ClientOptions } from './http.ts';
export type { CallOptions, RunOptions, WaitOptions } from './jobs.ts';
export type { UploadData } from './resources.ts';
export * from './types.ts';
export { type HeaderSource, WebhookVerificationError } from './webhooks.ts';

/** The client: one property per resource, a method per endpoint. */
export interface GenjobsClient {
  jobs: Jobs;
  uploads: UploadsApi;
  catalog: CatalogApi;
  models: ModelsApi;
  account: AccountApi;
  webhooks: {
    /** Verifies a webhook (Standard Webhooks) and answers its parsed body; throws WebhookVerificationError. */
    verify<T = WebhookEvent>(
      headers: HeaderSource,
      rawBody: string | Uint8Array,
      secret: string,
      options?: VerifyOptions,
    ): Promise<T>;
  };
  /** The OpenAPI document the service serves. */
  openapi(): Promise<Record<string, unknown>>;
}

export function createClient(options: ClientOptions): GenjobsClient {
  const http = new Http(options);
  return {
    jobs: new Jobs(http),
    uploads: new UploadsApi(http),
    catalog: new CatalogApi(http),
    models: new ModelsApi(http),
    account: new AccountApi(http),
    webhooks: {
      verify: (headers, rawBody, secret, verifyOptions) =>
        verifyWebhook(headers, rawBody, secret, verifyOptions),
    },
    openapi: () =>
      http.json({ method: 'GET', path: '/v1/openapi.json', credential: 'none', idempotent: true }),
  };
}
