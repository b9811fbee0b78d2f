import { z } from 'zod';

/**
 * Request and response shapes of the job endpoints. Requests are parsed with these
 * schemas and the OpenAPI document is generated from the same objects, so the two cannot
 * drift apart.
 */
const slug = z
  .string()
  .min(1)
  .max(253)
  .describe('Model slug <provider_id>/<model_name>/<capability> (or the two-part form)');
const version = z
  .string()
  .regex(/^v\d+\.\d+$/, 'a version like v1.0')
  .describe('Model version; latest stable when omitted');

export const SubmitRequest = z.strictObject({
  model: slug,
  version: version.optional(),
  input: z.record(z.string(), z.unknown()).describe("Model-specific input; see the model's inputSchema"),
  webhookUrl: z
    .string()
    .max(2048)
    .optional()
    .describe('https:// address notified when the job completes or fails'),
});

export const EstimateRequest = z.strictObject({
  model: slug,
  version: version.optional(),
  input: z.record(z.string(), z.unknown()).optional(),
});

export const SubmitResult = z.object({
  jobId: z.string(),
  requestId: z.string(),
  status: z.literal('pending'),
  estimatedCompletionTime: z.iso.datetime(),
  costMicroCents: z.number().int().nonnegative(),
});

const OutputItem = z.object({
  url: z.string(),
  type: z.enum(['video', 'image', 'audio', 'text']),
  thumbnail: z.string().optional(),
  posterImage: z.string().optional(),
});

export const JobRecord = z.object({
  jobId: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']),
  progress: z.number().int().min(0).max(100),
  output: z.string().nullable(),
  outputs: z.array(OutputItem).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  model: z.string(),
  costMicroCents: z.number().int().nonnegative(),
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
      'Pending and processing jobs: when the job should complete, from observed run times. An addition clients may ignore',
    ),
});

export const Estimate = z.object({
  baseCostMicroCents: z.number().int().nonnegative(),
  estimatedCostMicroCents: z.number().int().nonnegative(),
  breakdown: z.array(z.object({ component: z.string(), costMicroCents: z.number().int() })),
  hasDiscount: z.boolean(),
  discounted: z
    .object({ type: z.string(), percentage: z.number(), savedMicroCents: z.number().int() })
    .optional(),
});

export const CancelResult = z.object({
  jobId: z.string(),
  status: z.literal('cancelled'),
  refundedMicroCents: z.number().int().nonnegative(),
});

export const JobListQuery = z.strictObject({
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']).optional(),
  model: z.string().max(253).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
});

export const JobList = z.object({ jobs: z.array(JobRecord), nextCursor: z.string().nullable() });
