import { z } from 'zod';
import { JOB_FAILURE_CODES } from '../../jobs/failure.ts';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/deliver.ts';

/**
 * Request and response shapes of the job endpoints. Requests are parsed with these
 * schemas and the OpenAPI document is generated from the same objects, so the two cannot
 * drift apart.
 */
const slug = z
  .string()
  .min(1)
  .max(253)
  .describe(
    'Capability variant slug <provider_id>/<model_name>/<capability>. A two-part model slug names no variant: MODEL_NOT_FOUND, whose message lists the variants.',
  );
const version = z
  .string()
  // ASCII digits: other regex engines (a client's, a fuzzer's) read \d as any Unicode digit.
  .regex(/^v[0-9]+\.[0-9]+$/, 'a version like v1.0')
  .describe('Model version; latest stable when omitted');

// Optional fields take null as absent: clients generated from the document send null for
// a field they do not set. The routes turn null into undefined before the service sees it.
const input = z.record(z.string(), z.unknown());

/** The three priced cases of spec 4.1, as examples a reader (or a generator) can run. */
const IMAGE_1K = {
  model: 'genjobs/reference-image/text-to-image',
  input: { prompt: 'a lighthouse at dusk' },
};
const IMAGE_4K = {
  model: 'genjobs/reference-image/text-to-image',
  input: { prompt: 'a lighthouse at dusk', resolution: '4k' },
};
const VIDEO_8S = {
  model: 'genjobs/reference-video/text-to-video',
  input: { prompt: 'waves on rocks', duration: 8, resolution: '720p', has_sound: true },
};

const webhookUrl = z.string().max(2048).nullish();

export const SubmitRequest = z
  .strictObject({
    model: slug,
    version: version.nullish(),
    input: input.describe("Model-specific input; see the model's inputSchema"),
    webhookUrl: webhookUrl.describe(
      'https:// address (no user:password@ in it) notified when the job completes or fails; null is the same as absent',
    ),
  })
  .meta({ examples: [IMAGE_1K, IMAGE_4K, VIDEO_8S] });

export const EstimateRequest = z
  .strictObject({
    model: slug,
    version: version.nullish(),
    input: input
      .nullish()
      .describe(
        'Model-specific input, possibly partial (no prompt yet): missing fields are priced at their defaults; null is the same as absent',
      ),
    webhookUrl: webhookUrl.describe(
      "Accepted and ignored, so a submit's body can be estimated as it is: it changes no price",
    ),
  })
  .meta({ examples: [IMAGE_1K, IMAGE_4K, VIDEO_8S] });

/** The ids the document's examples show: one job's, one request's. */
export const JOB_ID_EXAMPLE = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
export const REQUEST_ID_EXAMPLE = '0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0';

export const SubmitResult = z
  .object({
    jobId: z.string(),
    requestId: z.string(),
    status: z.literal('pending'),
    estimatedCompletionTime: z.iso.datetime(),
    costMicroCents: z.number().int().nonnegative(),
  })
  .meta({
    examples: [
      {
        jobId: JOB_ID_EXAMPLE,
        requestId: REQUEST_ID_EXAMPLE,
        status: 'pending',
        estimatedCompletionTime: '2026-01-01T00:04:00.000Z',
        costMicroCents: 2_400_000,
      },
    ],
  });

export const OutputItem = z.object({
  url: z.string(),
  type: z.enum(['video', 'image', 'audio', 'text']),
  thumbnail: z.string().optional(),
  posterImage: z.string().optional(),
});

/** Why a failed job failed. */
export const JobFailure = z.object({
  code: z.enum(JOB_FAILURE_CODES).describe('GENERATION_FAILED: the model failed; the others: see the README'),
  message: z.string(),
  retryable: z.boolean().describe('whether submitting the same job again may succeed'),
});

/** A job as GET /v1/jobs/{jobId} shows it, for the document's examples. */
const COMPLETED_JOB_EXAMPLE = {
  jobId: JOB_ID_EXAMPLE,
  status: 'completed',
  progress: 100,
  output: `https://genjobs.example.com/files/jobs/${JOB_ID_EXAMPLE}/output-0.png`,
  outputs: [{ url: `https://genjobs.example.com/files/jobs/${JOB_ID_EXAMPLE}/output-0.png`, type: 'image' }],
  error: null,
  createdAt: '2026-01-01T00:00:00Z',
  completedAt: '2026-01-01T00:00:31.512Z',
  model: 'genjobs/reference-image/text-to-image',
  costMicroCents: 134_000,
};
const PENDING_JOB_EXAMPLE = {
  jobId: '0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d',
  status: 'pending',
  progress: 0,
  output: null,
  outputs: null,
  error: null,
  createdAt: '2026-01-01T00:01:00Z',
  completedAt: null,
  model: 'genjobs/reference-video/text-to-video',
  costMicroCents: 2_400_000,
  queuePosition: 2,
  estimatedCompletionTime: '2026-01-01T00:04:10.000Z',
};

export const JobRecord = z
  .object({
    jobId: z.string(),
    status: z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']),
    progress: z.number().int().min(0).max(100),
    output: z.string().nullable(),
    outputs: z.array(OutputItem).nullable(),
    error: JobFailure.nullable(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    model: z.string(),
    costMicroCents: z
      .number()
      .int()
      .nonnegative()
      .describe(
        'What the job was priced at when submitted, in micro-cents (1,000,000 = $1); a failed or cancelled job was not charged it (refundedMicroCents)',
      ),
    refundedMicroCents: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Failed and cancelled jobs only: the credit given back, their whole cost. An addition clients may ignore',
      ),
    queuePosition: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Pending jobs only: jobs ahead of this one for the model variant (0: next). An addition clients may ignore',
      ),
    estimatedCompletionTime: z.iso
      .datetime()
      .optional()
      .describe(
        'Pending and processing jobs: when the job should complete, from observed run times; absent while its model variant is paused (no slots). An addition clients may ignore',
      ),
  })
  .meta({ examples: [COMPLETED_JOB_EXAMPLE, PENDING_JOB_EXAMPLE] });

/** The body of a job's webhook (README, Webhooks): the same on every attempt. */
export const WebhookEvent = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    timestamp: z.iso.datetime().describe('When the job finished (its completedAt)'),
    // The job as GET /v1/jobs/{jobId} showed it when it finished (not described here: a
    // described copy would be a schema of its own, not the document's Job).
    data: JobRecord,
  })
  .meta({
    examples: [
      { type: 'job.completed', timestamp: COMPLETED_JOB_EXAMPLE.completedAt, data: COMPLETED_JOB_EXAMPLE },
    ],
  });

const estimateOf = (breakdown: Array<[string, number]>) => {
  const total = breakdown.reduce((sum, [, cost]) => sum + cost, 0);
  return {
    baseCostMicroCents: total,
    estimatedCostMicroCents: total,
    breakdown: breakdown.map(([component, costMicroCents]) => ({ component, costMicroCents })),
    hasDiscount: false,
  };
};

export const Estimate = z
  .object({
    baseCostMicroCents: z.number().int().nonnegative(),
    estimatedCostMicroCents: z.number().int().nonnegative(),
    breakdown: z.array(z.object({ component: z.string(), costMicroCents: z.number().int() })),
    hasDiscount: z.boolean(),
    discounted: z
      .object({ type: z.string(), percentage: z.number(), savedMicroCents: z.number().int() })
      .optional(),
  })
  .meta({
    // The three priced cases of spec 4.1, as this service breaks them down.
    examples: [
      estimateOf([
        ['base', 134_000],
        ['resolution=1k', 0],
      ]),
      estimateOf([
        ['base', 134_000],
        ['resolution=4k', 107_200],
      ]),
      estimateOf([
        ['base', 1_600_000],
        ['resolution=720p', 0],
        ['has_sound=true', 800_000],
      ]),
    ],
  });

export const CancelResult = z
  .object({
    jobId: z.string(),
    status: z.literal('cancelled'),
    refundedMicroCents: z.number().int().nonnegative(),
  })
  .meta({
    examples: [{ jobId: PENDING_JOB_EXAMPLE.jobId, status: 'cancelled', refundedMicroCents: 2_400_000 }],
  });

/**
 * A list cursor: the sort key of the last job shown. Any string of this shape is a
 * position in the list (jobs older than it follow), so every cursor the document admits
 * is one the server takes. ASCII classes, not \\d: other regex engines read \\d as any
 * Unicode digit.
 */
/** `<provider>/<model>/<capability>` as the catalog spells its parts (src/catalog/schema.ts). */
const SLUG_PART = '[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?';
export const MODEL_FILTER = new RegExp(`^${SLUG_PART}/${SLUG_PART}/[a-z0-9]+(?:-[a-z0-9]+)*$`);

/**
 * `<createdAt>_<jobId>`. createdAt is a creationTimestamp, which Kubernetes writes to the
 * second: a fraction would be compared as text with whole seconds (and `.` sorts before `Z`),
 * so it is refused rather than skipping jobs, as are a month, day, hour, minute or second out
 * of range. Any cursor of this shape is a position in the list, compared as text (a 30th of
 * February falls between the 28th and the 1st of March): what the document declares is
 * exactly what the service takes.
 */
export const JOB_CURSOR =
  /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z_[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export const JobListQuery = z.strictObject({
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']).optional(),
  // A full slug, as jobs record it: anything else matches no job, and a value such as a NUL
  // byte must never reach the archive's query (PostgreSQL refuses it in text).
  model: z
    .string()
    .max(253)
    .regex(MODEL_FILTER, 'a model slug <provider_id>/<model_name>/<capability>')
    .optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .max(512)
    .regex(JOB_CURSOR, 'not a cursor this service issues')
    .optional()
    .describe('nextCursor of the previous page: <createdAt>_<jobId>, the last job shown'),
});

export const JobList = z.object({ jobs: z.array(JobRecord), nextCursor: z.string().nullable() }).meta({
  examples: [
    {
      jobs: [PENDING_JOB_EXAMPLE, COMPLETED_JOB_EXAMPLE],
      nextCursor: `${COMPLETED_JOB_EXAMPLE.createdAt}_${COMPLETED_JOB_EXAMPLE.jobId}`,
    },
  ],
});
