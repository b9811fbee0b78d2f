import { z } from 'zod';
import { AppError, codesWithStatus, type ErrorCode } from '../errors.ts';
import { describeFailure, isRetryableFailure, JOB_FAILURE_CODES } from '../jobs/failure.ts';
import { RETRY_SCHEDULE_MS } from '../webhooks/schedule.ts';
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
  JOB_ID_EXAMPLE,
  JobFailure,
  JobList,
  JobListQuery,
  JobRecord,
  OutputItem,
  REQUEST_ID_EXAMPLE,
  SubmitRequest,
  SubmitResult,
  WebhookEvent,
} from './jobs/schemas.ts';
import { problemBody } from './problem.ts';

/** RFC 9457 problem details with the service's extension members; `code` is one of `codes`. */
export function problemSchema(codes: readonly [string, ...string[]] | undefined) {
  return z.object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: codes ? z.enum(codes) : z.string(),
    requestId: z.string(),
    retryable: z.boolean(),
    success: z.literal(false).optional().describe('present on the wrapped upload endpoints'),
    errors: z.array(z.object({ pointer: z.string(), message: z.string() })).optional(),
  });
}

/** Any problem body of the service. */
export const Problem = problemSchema(undefined);

export type Security = 'bearer' | 'apiKeyHeader' | 'optionalBearer' | 'none';

/** One operation of the document. The same zod objects parse the requests. */
export interface Operation {
  method: 'get' | 'post' | 'put';
  path: string;
  /** Stable name for generated clients (`submitJob` becomes `client.submitJob()`). */
  operationId: string;
  summary: string;
  security: Security;
  scope?: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  responses: Record<number, z.ZodType>;
  /** Error statuses this operation can answer (all with the Problem body). */
  errors: number[];
  /** Patterns of path parameters, so generated values are ones the route can match. */
  pathPatterns?: Record<string, string>;
  /** OpenAPI links of the 200 answer: operations a value of it feeds (stateful clients, fuzzers). */
  links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
  /** Media type of the 200 answer when it is not JSON (the event stream). */
  contentType?: string;
  /** Request headers the operation reads, so generated clients take them as parameters. */
  headers?: Record<string, Header>;
  /** Headers of the 200 answer. */
  responseHeaders?: Record<string, Header>;
  /** Statuses answered with no body, and what they mean. */
  empty?: Record<number, string>;
  description?: string;
}

/** A request or response header of an operation. */
interface Header {
  description: string;
  schema: Record<string, unknown>;
}

const AUTH = [401, 403];

/**
 * The response schemas the document names in `components.schemas`, so a generated client
 * has one type per thing (a job is `Job` in the list, the GET and the webhook alike).
 * Modules that add operations name theirs with {@link component}.
 */
const components = z.registry<{ id: string }>();

/** Names `schema` in the document's components; returns it. */
export function component<T extends z.ZodType>(name: string, schema: T): T {
  components.add(schema, { id: name });
  return schema;
}

component('Job', JobRecord);
component('JobOutput', OutputItem);
component('JobError', JobFailure);
component('JobList', JobList);
component('SubmitResult', SubmitResult);
component('Estimate', Estimate);
component('CancelResult', CancelResult);
component('WebhookEvent', WebhookEvent);
component('CatalogModel', CatalogModelItem);
component('CatalogModelDetail', CatalogModelDetail);
component('CatalogProvider', CatalogProviderItem);
component('CatalogProviderDetail', CatalogProviderDetail);
component('CapabilityGroup', CapabilityGroup);
component('Category', Category);
component('ModelList', ApiModelList);
component('ProviderModelList', ProviderModelList);

/** `<provider>/<model>[/<capability>]` as the catalog spells its parts (src/catalog/schema.ts). */
const PART = '[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?';
const SLUG_PATTERN = `^${PART}/${PART}(?:/[a-z0-9]+(?:-[a-z0-9]+)*)?$`;
const jobId = '{jobId}';

/** Every operation of the public API. Other modules (uploads) add theirs with {@link addOperations}. */
const operations: Operation[] = [
  {
    method: 'post',
    path: '/v1/jobs/submit',
    operationId: 'submitJob',
    summary: 'Submit a generation job',
    security: 'bearer',
    scope: 'submit_job',
    body: SubmitRequest,
    headers: {
      'Idempotency-Key': {
        description:
          'Makes a retry safe: within 24 hours the same key (per account) with the same body answers the same job, with Idempotent-Replayed: true; with another body, 409 IDEMPOTENCY_KEY_REUSED',
        schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      },
    },
    responses: { 200: SubmitResult },
    responseHeaders: {
      'Idempotent-Replayed': {
        description: 'true when the answer is the job an earlier submit with this Idempotency-Key made',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    links: {
      GetJob: { operationId: 'getJob', parameters: { jobId: '$response.body#/jobId' } },
      CancelJob: { operationId: 'cancelJob', parameters: { jobId: '$response.body#/jobId' } },
    },
    errors: [400, ...AUTH, 402, 404, 409, 413, 415, 422, 429, 503],
  },
  {
    method: 'post',
    path: '/v1/jobs/estimate',
    operationId: 'estimateJob',
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
    operationId: 'listJobs',
    summary: "List the account's jobs, newest first",
    security: 'bearer',
    scope: 'check_status',
    query: JobListQuery,
    responses: { 200: JobList },
    // 503: the job history (archive) cannot answer.
    errors: [400, ...AUTH, 503],
  },
  {
    method: 'get',
    path: `/v1/jobs/${jobId}`,
    operationId: 'getJob',
    summary: 'Get a job',
    security: 'bearer',
    scope: 'check_status',
    responses: { 200: JobRecord },
    errors: [400, ...AUTH, 404, 503],
  },
  {
    method: 'get',
    path: `/v1/jobs/${jobId}/events`,
    operationId: 'streamJobEvents',
    summary: "Follow a job's changes (Server-Sent Events)",
    description:
      'Scope: check_status. `text/event-stream`: an `event: job` whose data is the job record (as GET /v1/jobs/{jobId}) on every change, with an `id:` (an opaque string, neither a number nor increasing) a client sends back as `Last-Event-ID` to resume without loss; a `: heartbeat` comment every 15 s; the stream ends after the terminal record (a finished job: one event). 204 when the Last-Event-ID already names the terminal record.',
    security: 'bearer',
    scope: 'check_status',
    // The body is text: a generated client hands it over as a string for an SSE parser. Each
    // event's data is a Job (components.schemas); test/client/events.test.ts holds the
    // events to it, as the contract check does JSON answers.
    headers: {
      'Last-Event-ID': {
        description:
          'The id of the last event received: the stream resumes after it (EventSource sends it on reconnect; a browser reaches this endpoint through its own backend, since EventSource cannot send a key)',
        schema: { type: 'string' },
      },
    },
    responses: {
      200: z
        .string()
        .describe(
          'Server-Sent Events: per change `id: <id>`, `event: job`, `data: <the Job as JSON>` (the first block also carries `retry: 2000`); heartbeats are comments',
        ),
    },
    contentType: 'text/event-stream',
    empty: { 204: 'The client already holds the terminal record: nothing more will come' },
    errors: [400, ...AUTH, 404, 503],
  },
  {
    method: 'post',
    path: `/v1/jobs/${jobId}/cancel`,
    operationId: 'cancelJob',
    summary: 'Cancel a pending job (refunded)',
    security: 'bearer',
    scope: 'submit_job',
    responses: { 200: CancelResult },
    errors: [400, ...AUTH, 404, 409, 503],
  },
  {
    method: 'get',
    path: '/v1/catalog/models',
    operationId: 'listCatalogModels',
    summary: 'List catalog models (personalized with a Bearer token)',
    security: 'optionalBearer',
    query: CatalogFilterQuery,
    responses: { 200: z.array(CatalogModelItem) },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/v1/catalog/models/{slug}',
    operationId: 'getCatalogModel',
    summary: 'Get a catalog model: provider/model (default capability) or provider/model/capability',
    security: 'optionalBearer',
    responses: { 200: CatalogModelDetail },
    // No 401: the spec gives this endpoint no credential, so a key that fails is ignored.
    errors: [400, 404],
    pathPatterns: { slug: SLUG_PATTERN },
  },
  {
    method: 'get',
    path: '/v1/catalog/providers',
    operationId: 'listCatalogProviders',
    summary: 'List providers with at least one model',
    security: 'none',
    query: CatalogFilterQuery.omit({ provider: true }),
    responses: { 200: z.array(CatalogProviderItem) },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/catalog/providers/{id}',
    operationId: 'getCatalogProvider',
    summary: 'Get a provider and its models',
    security: 'none',
    responses: { 200: CatalogProviderDetail },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/v1/catalog/capability-groups',
    operationId: 'listCapabilityGroups',
    summary: 'List capability groups',
    security: 'none',
    responses: { 200: z.array(CapabilityGroup) },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/catalog/categories',
    operationId: 'listCategories',
    summary: 'List categories',
    security: 'none',
    responses: { 200: z.array(Category) },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
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
    operationId: 'listProviderModels',
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

type JsonSchema = Record<string, unknown>;

/**
 * How the document's schemas are made. Requests are closed (the api refuses an unknown
 * field). Answers are published open: a client built from the document must not break when
 * a field is added (the README's additions are such fields). `closedAnswers` keeps them
 * closed, as the tests check the api's answers: no field the document does not name.
 */
function converter(closedAnswers: boolean) {
  const base = { target: 'draft-2020-12', unrepresentable: 'any', override: portable } as const;
  const open = ({ jsonSchema }: { jsonSchema: JsonSchema }) => {
    portable({ jsonSchema });
    if (!closedAnswers && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  };
  const bare = ({ $schema: _schema, $id: _id, ...rest }: JsonSchema) => rest;
  return {
    input: (schema: z.ZodType) => bare(z.toJSONSchema(schema, { ...base, io: 'input' })),
    output: (schema: z.ZodType) => bare(z.toJSONSchema(schema, { ...base, io: 'output', override: open })),
    /** The named answers, each referring to the others by $ref. */
    components: (): Record<string, JsonSchema> => {
      const { schemas } = z.toJSONSchema(components, {
        ...base,
        io: 'output',
        override: open,
        uri: (id) => `#/components/schemas/${id}`,
      });
      return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, bare(schema)]));
    },
    /** An answer's schema: a $ref when it (or an array's items) has a name. */
    answer(schema: z.ZodType): JsonSchema {
      const name = components.get(schema)?.id;
      if (name) return { $ref: `#/components/schemas/${name}` };
      if (schema instanceof z.ZodArray) {
        const item = components.get(schema.element as z.ZodType)?.id;
        if (item) return { type: 'array', items: { $ref: `#/components/schemas/${item}` } };
      }
      return this.output(schema);
    },
  };
}

/**
 * Numbers as every generator reads them, not only those of OpenAPI 3.1: an integer's lower
 * bound inclusive (`minimum: 1`; a numeric `exclusiveMinimum` is read as 3.0's boolean by
 * some), `int64` where the values pass 32 bits (micro-cents do: a typed client must not
 * make them an `int32`), `double` for the other numbers (not a `float`). A boolean with one
 * value (`success: true`) is a plain boolean that says its value: openapi-generator's default
 * Java library makes a `const` boolean an enum of strings that does not compile.
 */
function portable({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.type === 'boolean' && typeof jsonSchema.const === 'boolean') {
    const always = `always ${jsonSchema.const}`;
    jsonSchema.description = jsonSchema.description ? `${jsonSchema.description}; ${always}` : always;
    delete jsonSchema.const;
  } else if (jsonSchema.type === 'integer') {
    if (typeof jsonSchema.exclusiveMinimum === 'number') {
      jsonSchema.minimum = Math.floor(jsonSchema.exclusiveMinimum) + 1;
      delete jsonSchema.exclusiveMinimum;
    }
    const max = jsonSchema.maximum;
    if (typeof max !== 'number' || max > 2 ** 31 - 1) jsonSchema.format = 'int64';
  } else if (jsonSchema.type === 'number' && jsonSchema.format === undefined) {
    jsonSchema.format = 'double';
  }
}

/** The group a generated client puts an operation in (its module or class), by path. */
function tagOf(path: string): string {
  if (path.startsWith('/v1/jobs')) return 'jobs';
  if (path.startsWith('/v1/uploads')) return 'uploads';
  if (path.startsWith('/v1/catalog')) return 'catalog';
  if (path.startsWith('/v1/models') || path.startsWith('/v1/providers')) return 'models';
  if (path.startsWith('/v1/account')) return 'account';
  return 'service';
}

/**
 * Statuses that come with Retry-After (rate and concurrency limits, outages; a 402 while
 * other api replicas' credit leases may give credit back).
 */
const RETRY_AFTER = new Set([402, 408, 429, 503]);

/** A path template as a regular expression: `{slug}` spans segments, other parameters one. */
function templateRegex(path: string): RegExp {
  const source = path
    .split(/(\{\w+\})/)
    .map((part) =>
      part === '{slug}'
        ? '(.+)'
        : part.startsWith('{')
          ? '([^/]+)'
          : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}

/** The document's paths as patterns, with their methods sorted; made again when operations are added. */
let templates:
  | { forOperations: number; list: Array<{ regex: RegExp; methods: string[]; params: number }> }
  | undefined;

/**
 * The methods the document has for a request path (upper case, HEAD with GET), or
 * undefined when no path of the document matches: what a 405's `Allow` lists. As in
 * OpenAPI, the path with the fewest parameters wins: /v1/jobs/submit is not /v1/jobs/{jobId}.
 */
export function allowedMethods(path: string): string[] | undefined {
  // Asked on every request: the patterns are built once (again only if operations were added).
  if (templates?.forOperations !== operations.length) {
    const byPath = new Map<string, Set<string>>();
    for (const op of operations) {
      const methods = byPath.get(op.path) ?? new Set<string>();
      methods.add(op.method.toUpperCase());
      if (op.method === 'get') methods.add('HEAD');
      byPath.set(op.path, methods);
    }
    const list = [...byPath]
      .map(([p, methods]) => ({
        regex: templateRegex(p),
        methods: [...methods].sort(),
        params: p.split('{').length,
      }))
      .sort((a, b) => a.params - b.params);
    templates = { forOperations: operations.length, list };
  }
  const match = templates.list.find((t) => t.regex.test(path));
  return match ? [...match.methods] : undefined;
}

/**
 * The problem a client most often meets with each status, as the service words it: the
 * examples of the document's Problem schemas (without them Swagger UI and generators make
 * up a status of -9007199254740991 and `success: true`).
 */
const PROBLEM_EXAMPLES: Record<number, [ErrorCode, string, Array<{ pointer: string; message: string }>?]> = {
  400: ['MALFORMED_REQUEST', 'request body is not valid JSON'],
  401: ['UNAUTHENTICATED', 'this endpoint needs an Authorization: Bearer <API key> header'],
  402: ['INSUFFICIENT_BALANCE', 'the job costs 2400000 micro-cents and the balance is 1200000'],
  403: ['INSUFFICIENT_SCOPE', 'this API key lacks the submit_job scope'],
  404: ['JOB_NOT_FOUND', `job ${JOB_ID_EXAMPLE} not found`],
  405: ['METHOD_NOT_ALLOWED', 'DELETE is not allowed on /v1/jobs/submit; allowed: OPTIONS, POST'],
  408: ['REQUEST_TIMEOUT', 'the request body did not arrive within 30 s; send it again'],
  409: ['JOB_CANNOT_BE_CANCELLED', `job ${JOB_ID_EXAMPLE} is processing; only pending jobs can be cancelled`],
  413: ['PAYLOAD_TOO_LARGE', 'request body is too large'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'request bodies must be JSON (Content-Type: application/json)'],
  422: [
    'INVALID_INPUT',
    "input does not match the model's inputSchema: /input/duration must be one of 4, 6, 8",
    [{ pointer: '/input/duration', message: 'must be one of 4, 6, 8' }],
  ],
  429: [
    'CONCURRENT_JOBS_EXCEEDED',
    'the account has 20 unfinished jobs, the most it may have at once; try again in 5 s',
  ],
  503: ['UNAVAILABLE', 'the job history is unavailable right now; please retry'],
};

/** A problem body as the service answers it, for an example (a status without one fails the document's test). */
function problemExample(status: number) {
  const example = PROBLEM_EXAMPLES[status];
  if (!example) throw new Error(`no problem example for status ${status}: add one to PROBLEM_EXAMPLES`);
  const [code, detail, errors] = example;
  return problemBody(new AppError(code, detail, { errors }), REQUEST_ID_EXAMPLE);
}

/** Problem bodies per status, `code` an enum of the codes answered with that status. */
function problemComponents(statuses: Iterable<number>, output: (schema: z.ZodType) => JsonSchema) {
  const schemas: Record<string, JsonSchema> = {
    Problem: output(Problem.meta({ examples: [problemExample(422)] })),
  };
  for (const status of statuses) {
    const codes = codesWithStatus(status);
    const schema = problemSchema(codes.length > 0 ? (codes as [string, ...string[]]) : undefined);
    schemas[`Problem${status}`] = output(schema.meta({ examples: [problemExample(status)] }));
  }
  return schemas;
}

/**
 * The header every answer carries: the request's id, also the body's `requestId` where it
 * has one (a replayed submit's body keeps the first request's) and in every log line of it.
 */
const REQUEST_ID_HEADER = {
  'x-request-id': {
    description:
      "The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request",
    schema: { type: 'string' },
  },
};

/** Header parameters of an operation, as OpenAPI parameters. */
const headerParameters = (headers: Record<string, Header> = {}) =>
  Object.entries(headers).map(([name, h]) => ({ name, in: 'header', required: false, ...h }));

/** The webhook retry schedule in words: `5 s, 5 min, …`. */
const retries = RETRY_SCHEDULE_MS.slice(1)
  .map((ms) =>
    ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`,
  )
  .join(', ');

/** The headers of a Standard Webhooks delivery (README, Webhooks). */
const WEBHOOK_HEADERS: Record<string, Header> = {
  'webhook-id': {
    description: 'The same on every attempt of one notification: de-duplicate by it',
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    description: 'Seconds since the epoch of this attempt; refuse one far from your clock (replays)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'webhook-signature': {
    description:
      "Space-separated `v1,<base64 HMAC-SHA256>` signatures (two during a secret rotation) of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the bytes of the account's secret: the base64 after its `whsec_` prefix, decoded",
    schema: { type: 'string' },
  },
};

const failureCodes = JOB_FAILURE_CODES.map(
  (c) => `${c} (${isRetryableFailure(c) ? 'retryable' : 'not retryable'}): ${describeFailure(c)}`,
).join('; ');

export interface DocumentOptions {
  /** Answers' schemas without room for more fields (the tests' contract check). */
  closedAnswers?: boolean;
  /**
   * The path the api is published under, '' (or absent) at the root: the one server, a
   * relative URL, so the document read through a proxy that strips a prefix points back there.
   */
  basePath?: string;
}

/** The OpenAPI 3.1 document of the service, built from the operation list. */
export function openApiDocument(options: DocumentOptions = {}): Record<string, unknown> {
  const schema = converter(options.closedAnswers ?? false);
  const paths: Record<string, Record<string, unknown>> = {};
  const statuses = new Set<number>();
  for (const op of operations) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: {
        type: 'string',
        ...(op.pathPatterns?.[m[1] ?? ''] ? { pattern: op.pathPatterns[m[1] ?? ''] } : {}),
      },
    }));
    const query = op.query
      ? Object.entries(op.query.shape).map(([name, s]) => ({
          name,
          in: 'query',
          required: !(s as z.ZodType).safeParse(undefined).success,
          schema: schema.input(s as z.ZodType),
        }))
      : [];
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(op.responses)) {
      responses[status] = {
        description: 'OK',
        headers: { ...REQUEST_ID_HEADER, ...(status === '200' ? op.responseHeaders : {}) },
        content: { [op.contentType ?? 'application/json']: { schema: schema.answer(answer) } },
        ...(status === '200' && op.links ? { links: op.links } : {}),
      };
    }
    for (const [status, description] of Object.entries(op.empty ?? {}))
      responses[status] = { description, headers: REQUEST_ID_HEADER };
    // Every authenticated call counts against its account's request rate (api/limits): 429.
    const limited = op.security === 'none' ? [] : [429];
    // A body that does not arrive within its deadline (api/deadline.ts): 408.
    const timed = op.body ? [408] : [];
    for (const status of new Set([...op.errors, ...limited, ...timed])) {
      statuses.add(status);
      responses[String(status)] = {
        description: 'Problem',
        headers: {
          ...REQUEST_ID_HEADER,
          ...(RETRY_AFTER.has(status)
            ? {
                'Retry-After': {
                  description: 'seconds to wait',
                  schema: { type: 'integer', minimum: 0, maximum: 2147483647 },
                },
              }
            : {}),
        },
        content: {
          'application/problem+json': { schema: { $ref: `#/components/schemas/Problem${status}` } },
        },
      };
    }
    // What any route may answer besides: a method it does not have (405), headers that do
    // not arrive in time (408) or are over 16 KiB (431), a bug (500).
    responses.default = {
      description:
        'Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL',
      headers: REQUEST_ID_HEADER,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
    const security =
      op.security === 'bearer'
        ? [{ bearer: [] }]
        : op.security === 'apiKeyHeader'
          ? [{ apiKeyHeader: [] }, { bearer: [] }]
          : op.security === 'optionalBearer'
            ? [{}, { bearer: [] }]
            : [];
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId: op.operationId,
      tags: [tagOf(op.path)],
      summary: op.summary,
      ...(op.description
        ? { description: op.description }
        : op.scope
          ? { description: `Scope: ${op.scope}` }
          : {}),
      parameters: [...params, ...query, ...headerParameters(op.headers)],
      ...(op.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: schema.input(op.body) } },
            },
          }
        : {}),
      responses,
      security,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'genjobs',
      version: '0.1.0',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description: [
        'Asynchronous image and video generation jobs.',
        'Money (every *MicroCents field) is a whole number of micro-cents: 1,000,000 micro-cents are one US dollar.',
        'Errors are application/problem+json; each status lists its codes as an enum.',
        'A method a path does not have answers 405 METHOD_NOT_ALLOWED with an Allow header.',
        'Optional request fields may be sent as null, which means absent.',
        `A failed job's error.code is one of: ${failureCodes}.`,
      ].join(' '),
    },
    // Relative: the origin the document was fetched from, whatever address reached the api.
    servers: [{ url: options.basePath || '/' }],
    paths,
    webhooks: {
      jobFinished: {
        post: {
          operationId: 'jobFinished',
          summary: 'A job completed or failed (sent to the webhookUrl of its submit)',
          description: `Signed per Standard Webhooks. Any answer but a 2xx is retried after ${retries} with the same webhook-id (a Retry-After up to 10 h is honoured); 410 stops the retries. A cancelled job sends none.`,
          parameters: headerParameters(WEBHOOK_HEADERS).map((p) => ({ ...p, required: true })),
          // The receiver checks the signature, not an API key.
          security: [],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } },
          },
          responses: {
            '2XX': { description: 'Received: no more attempts' },
            '410': { description: 'Gone: no more attempts for this notification' },
          },
        },
      },
    },
    components: {
      schemas: { ...schema.components(), ...problemComponents([...statuses, 405].sort(), schema.output) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: gjk_…' },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'An API key: gjk_…, on the model listings (which take a Bearer key too; two different keys are refused)',
        },
      },
    },
  };
}
