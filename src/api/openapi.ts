import { z } from 'zod';
import {
  ApiModelList,
  CapabilityGroup,
  CatalogFilterQuery,
  CatalogModelDetail,
  CatalogModelItem,
  CatalogProviderDetail,
  CatalogProviderItem,
  Category,
  ProviderModelList,
} from './catalog/schemas.ts';
import {
  CancelResult,
  Estimate,
  EstimateRequest,
  JobList,
  JobListQuery,
  JobRecord,
  SubmitRequest,
  SubmitResult,
} from './jobs/schemas.ts';

/** RFC 9457 problem details with the service's extension members. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  requestId: z.string(),
  retryable: z.boolean(),
  success: z.literal(false).optional().describe('present on the wrapped upload endpoints'),
  errors: z.array(z.object({ pointer: z.string(), message: z.string() })).optional(),
});

export type Security = 'bearer' | 'apiKeyHeader' | 'optionalBearer' | 'none';

/** One operation of the document. The same zod objects parse the requests. */
export interface Operation {
  method: 'get' | 'post' | 'put';
  path: string;
  summary: string;
  security: Security;
  scope?: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  responses: Record<number, z.ZodType>;
  /** Error statuses this operation can answer (all with the Problem body). */
  errors: number[];
  /** Media type of the 200 answer when it is not JSON (the event stream). */
  contentType?: string;
  /** Statuses answered with no body, and what they mean. */
  empty?: Record<number, string>;
  description?: string;
}

const AUTH = [401, 403];
const jobId = '{jobId}';

/** Every operation of the public API. Other modules (uploads) add theirs with {@link addOperations}. */
const operations: Operation[] = [
  {
    method: 'post',
    path: '/v1/jobs/submit',
    summary: 'Submit a generation job',
    security: 'bearer',
    scope: 'submit_job',
    body: SubmitRequest,
    responses: { 200: SubmitResult },
    errors: [400, ...AUTH, 402, 404, 409, 413, 415, 422, 429, 503],
  },
  {
    method: 'post',
    path: '/v1/jobs/estimate',
    summary: 'Estimate the cost of a job',
    security: 'bearer',
    scope: 'check_status',
    body: EstimateRequest,
    responses: { 200: Estimate },
    errors: [400, ...AUTH, 404, 413, 415, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/jobs',
    summary: "List the account's jobs, newest first",
    security: 'bearer',
    scope: 'check_status',
    query: JobListQuery,
    responses: { 200: JobList },
    errors: [400, ...AUTH],
  },
  {
    method: 'get',
    path: `/v1/jobs/${jobId}`,
    summary: 'Get a job',
    security: 'bearer',
    scope: 'check_status',
    responses: { 200: JobRecord },
    errors: [...AUTH, 404],
  },
  {
    method: 'get',
    path: `/v1/jobs/${jobId}/events`,
    summary: "Follow a job's changes (Server-Sent Events)",
    description:
      'Scope: check_status. `text/event-stream`: an `event: job` whose data is the job record (as GET /v1/jobs/{jobId}) on every change, with an `id:` a client sends back as `Last-Event-ID` to resume without loss; a `: heartbeat` comment every 15 s; the stream ends after the terminal record (a finished job: one event). 204 when the Last-Event-ID already names the terminal record.',
    security: 'bearer',
    scope: 'check_status',
    responses: { 200: z.string().describe('Server-Sent Events; each data line is a job record') },
    contentType: 'text/event-stream',
    empty: { 204: 'The client already holds the terminal record: nothing more will come' },
    errors: [...AUTH, 404],
  },
  {
    method: 'post',
    path: `/v1/jobs/${jobId}/cancel`,
    summary: 'Cancel a pending job (refunded)',
    security: 'bearer',
    scope: 'submit_job',
    responses: { 200: CancelResult },
    errors: [...AUTH, 404, 409],
  },
  {
    method: 'get',
    path: '/v1/catalog/models',
    summary: 'List catalog models (personalized with a Bearer token)',
    security: 'optionalBearer',
    query: CatalogFilterQuery,
    responses: { 200: z.array(CatalogModelItem) },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/v1/catalog/models/{slug}',
    summary: 'Get a catalog model: provider/model (default capability) or provider/model/capability',
    security: 'optionalBearer',
    responses: { 200: CatalogModelDetail },
    errors: [401, 404],
  },
  {
    method: 'get',
    path: '/v1/catalog/providers',
    summary: 'List providers with at least one model',
    security: 'none',
    query: CatalogFilterQuery.omit({ provider: true }),
    responses: { 200: z.array(CatalogProviderItem) },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/catalog/providers/{id}',
    summary: 'Get a provider and its models',
    security: 'none',
    responses: { 200: CatalogProviderDetail },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/catalog/capability-groups',
    summary: 'List capability groups',
    security: 'none',
    responses: { 200: z.array(CapabilityGroup) },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/catalog/categories',
    summary: 'List categories',
    security: 'none',
    responses: { 200: z.array(Category) },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/models',
    summary: 'List the models the key may use (cached 5 minutes)',
    security: 'apiKeyHeader',
    scope: 'list_models',
    query: CatalogFilterQuery,
    responses: { 200: ApiModelList },
    errors: [400, ...AUTH],
  },
  {
    method: 'get',
    path: '/v1/providers/{providerId}/models',
    summary: "List a provider's models the key may use",
    security: 'apiKeyHeader',
    scope: 'list_models',
    query: CatalogFilterQuery.omit({ provider: true }),
    responses: { 200: ProviderModelList },
    errors: [400, ...AUTH, 404],
  },
];

export function addOperations(more: Operation[]): void {
  operations.push(...more);
}

export function listOperations(): readonly Operation[] {
  return operations;
}

const json = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' });

/** The OpenAPI 3.1 document of the service, built from the operation list. */
export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = op.query
      ? Object.entries(op.query.shape).map(([name, s]) => ({
          name,
          in: 'query',
          required: !(s as z.ZodType).safeParse(undefined).success,
          schema: json(s as z.ZodType),
        }))
      : [];
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      responses[status] = {
        description: 'OK',
        content: { [op.contentType ?? 'application/json']: { schema: json(schema) } },
      };
    }
    for (const [status, description] of Object.entries(op.empty ?? {})) responses[status] = { description };
    for (const status of op.errors) {
      responses[String(status)] = {
        description: 'Problem',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const security =
      op.security === 'bearer'
        ? [{ bearer: [] }]
        : op.security === 'apiKeyHeader'
          ? [{ apiKeyHeader: [] }]
          : op.security === 'optionalBearer'
            ? [{}, { bearer: [] }]
            : [];
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      ...(op.description
        ? { description: op.description }
        : op.scope
          ? { description: `Scope: ${op.scope}` }
          : {}),
      parameters: [...params, ...query],
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: json(op.body) } } } }
        : {}),
      responses,
      security,
      'x-request-id': 'every response carries an x-request-id header',
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'genjobs', version: '0.1.0', description: 'Asynchronous image and video generation jobs' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths,
    components: {
      schemas: { Problem: json(Problem) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: gjk_…' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
  };
}
