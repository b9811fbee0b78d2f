import type { components, paths } from './openapi-types.ts';

type Named = components['schemas'];
type Body<P extends keyof paths> = paths[P]['post'] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths> = paths[P]['get'] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** A job's record (GET /v1/jobs/{jobId}); also what events and webhooks carry. */
export type Job = Named['Job'];
export type JobStatus = Job['status'];
export type SubmitRequest = Body<'/v1/jobs/submit'>;
export type SubmitResult = Named['SubmitResult'];
/** The body of a job's webhook: `data` is the Job as it finished. */
export type WebhookEvent = Named['WebhookEvent'];
export type EstimateRequest = Body<'/v1/jobs/estimate'>;
export type Estimate = Named['Estimate'];
export type CancelResult = Named['CancelResult'];
export type JobList = Named['JobList'];
export type JobListQuery = Query<'/v1/jobs'>;
export type PresignRequest = Body<'/v1/uploads/presign'>;
export type Presign = Named['PresignResponse'];
export type UploadRecord = Named['UploadResponse'];
export type AccountSummary = Named['Account'];
export type CatalogModel = Named['CatalogModel'];
export type CatalogModelDetail = Named['CatalogModelDetail'];
export type CatalogFilter = Query<'/v1/catalog/models'>;
export type CatalogProvider = Named['CatalogProvider'];
export type CatalogProviderDetail = Named['CatalogProviderDetail'];
export type CapabilityGroup = Named['CapabilityGroup'];
export type Category = Named['Category'];
export type ModelList = Named['ModelList'];
export type ProviderModelList = Named['ProviderModelList'];

/** The phases after which a job never changes. */
export const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isFinished(job: Pick<Job, 'status'>): boolean {
  return TERMINAL.includes(job.status);
}
