import type { paths } from './openapi-types.ts';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: infer R } }
  ? Json<R>
  : never;
type Body<P extends keyof paths> = paths[P]['post'] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths> = paths[P]['get'] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** A job's record (GET /v1/jobs/{jobId}); also what events and webhooks carry. */
export type Job = Ok<'/v1/jobs/{jobId}', 'get'>;
export type JobStatus = Job['status'];
export type SubmitRequest = Body<'/v1/jobs/submit'>;
export type SubmitResult = Ok<'/v1/jobs/submit', 'post'>;
export type EstimateRequest = Body<'/v1/jobs/estimate'>;
export type Estimate = Ok<'/v1/jobs/estimate', 'post'>;
export type CancelResult = Ok<'/v1/jobs/{jobId}/cancel', 'post'>;
export type JobList = Ok<'/v1/jobs', 'get'>;
export type JobListQuery = Query<'/v1/jobs'>;
export type PresignRequest = Body<'/v1/uploads/presign'>;
export type Presign = Ok<'/v1/uploads/presign', 'post'>;
export type UploadRecord = Ok<'/v1/uploads/{id}', 'get'>;
export type AccountSummary = Ok<'/v1/account', 'get'>;
export type CatalogModel = Ok<'/v1/catalog/models', 'get'>[number];
export type CatalogModelDetail = Ok<'/v1/catalog/models/{slug}', 'get'>;
export type CatalogFilter = Query<'/v1/catalog/models'>;
export type CatalogProvider = Ok<'/v1/catalog/providers', 'get'>[number];
export type CatalogProviderDetail = Ok<'/v1/catalog/providers/{id}', 'get'>;
export type CapabilityGroup = Ok<'/v1/catalog/capability-groups', 'get'>[number];
export type Category = Ok<'/v1/catalog/categories', 'get'>[number];
export type ModelList = Ok<'/v1/models', 'get'>;
export type ProviderModelList = Ok<'/v1/providers/{providerId}/models', 'get'>;

/** The phases after which a job never changes. */
export const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isFinished(job: Pick<Job, 'status'>): boolean {
  return TERMINAL.includes(job.status);
}
