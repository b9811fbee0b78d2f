/**
 * The parts of a catalog model that differ per capability: input schema, pricing and
 * runtime. schema.ts assembles them into the whole document.
 */

import { z } from 'zod';
import { MAX_GRANT_MICRO_CENTS } from '../ledger/limits.ts';
import { parseDecimal } from './decimal.ts';

/**
 * A `z.strictObject` whose unknown-key message names the keys that are allowed, so a typo
 * in a hand-written ConfigMap says what was meant.
 */
export function strict<T extends z.core.$ZodLooseShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')} (allowed: ${allowed})`
        : undefined,
  });
}

const INPUT_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'] as const;

/** One top-level property of an input schema; other JSON Schema keywords pass through to ajv. */
const inputPropertySchema = z
  .looseObject({
    type: z.union([z.enum(INPUT_TYPES), z.array(z.enum(INPUT_TYPES)).min(1)]).optional(),
    enum: z.array(z.unknown()).min(1).optional(),
  })
  // Pricing, defaults and the accepted second shapes read each field's schema as written:
  // behind a $ref they would not see its enum or default.
  .refine((p) => !Object.hasOwn(p, '$ref'), {
    path: ['$ref'],
    message:
      'is not supported on an input field: write the field out (pricing and defaults read it as written)',
  });

/**
 * The JSON Schema (draft-07) of a variant's job `input`. It must describe an object with
 * `properties`, because defaults, type coercion and pricing all work per top-level field.
 */
export const inputSchemaSchema = z.looseObject({
  type: z.literal('object', { error: 'inputSchema must have type: object' }),
  properties: z.record(z.string(), inputPropertySchema),
  required: z.array(z.string()).optional(),
});

const factorSchema = z
  .union([z.number(), z.string()])
  .refine(
    (v) => parseDecimal(v) !== undefined,
    'must be a non-negative decimal with at most 6 decimals, e.g. 1.5',
  );

/**
 * Pricing as data. cost = baseCredits × (per_second: the duration field's value) × Π
 * multipliers[field][String(input[field])], rounded half up once to whole micro-cents.
 */
export const pricingSchema = strict({
  /** Micro-cents per generation, or per second when `unit` is `per_second`. */
  baseCredits: z
    .number()
    .int()
    .nonnegative()
    .max(MAX_GRANT_MICRO_CENTS, `at most ${MAX_GRANT_MICRO_CENTS}, the most an account can hold`),
  unit: z.enum(['per_generation', 'per_second']),
  /** Which input field holds the seconds to multiply by; required with `per_second`. */
  perSecond: strict({ field: z.string().min(1) }).optional(),
  /** field → (value as a string → factor). Values are matched on their string form. */
  multipliers: z.record(z.string(), z.record(z.string(), factorSchema)).default({}),
}).superRefine((p, ctx) => {
  if (p.unit === 'per_second' && !p.perSecond) {
    ctx.addIssue({
      code: 'custom',
      path: ['perSecond'],
      message: 'unit per_second needs perSecond: {field: <duration field>}',
    });
  }
  if (p.unit !== 'per_second' && p.perSecond) {
    ctx.addIssue({
      code: 'custom',
      path: ['perSecond'],
      message: 'perSecond only applies with unit: per_second',
    });
  }
});

const quantitySchema = z.union([
  z
    .string()
    .regex(
      /^\+?(\d+(\.\d*)?|\.\d+)([eE]\d+|[mkMGTPE]|[KMGTPE]i)?$/,
      'must be a Kubernetes quantity such as 500m or 1Gi',
    ),
  z.number().nonnegative(),
]);

const podSchema = strict({
  resources: strict({
    requests: z.record(z.string(), quantitySchema).optional(),
    limits: z.record(z.string(), quantitySchema).optional(),
  }).optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z
    .array(
      strict({
        key: z.string().optional(),
        operator: z.enum(['Exists', 'Equal']).optional(),
        value: z.string().optional(),
        effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
        tolerationSeconds: z.number().int().optional(),
      }),
    )
    .optional(),
});

const runtimeCommon = {
  /** Jobs of this variant running at once, cluster-wide. 0 pauses it: jobs wait in pending. */
  maxConcurrency: z.number().int().min(0),
  /** A running job is failed (and refunded) after this long. */
  timeoutSeconds: z.number().int().positive().default(600),
  /** Approximate processing time, for estimatedCompletionTime (images ~30, video ~240). */
  typicalSeconds: z.number().int().positive(),
  pod: podSchema.optional(),
};

/**
 * A model server's token: a Secret of the service's namespace, by name and key. Whether the
 * Secret may serve (it must be labelled genjobs.io/model-credentials: "true") is checked by
 * the controller before a worker Pod references it: neither process may list Secrets, so
 * the catalog checks the reference's shape only.
 */
const secretRefSchema = strict({
  name: z
    .string()
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Secret name (lower-case DNS subdomain)'),
  key: z
    .string()
    .max(253)
    .regex(/^[-._a-zA-Z0-9]+$/, 'must be a Secret data key (letters, digits, -, _ and .)'),
});

/** How a job of the variant runs: the reference generator in our image, or an upstream server. */
export const runtimeSchema = z
  .discriminatedUnion(
    'type',
    [
      strict({ type: z.literal('builtin'), ...runtimeCommon }),
      strict({
        type: z.literal('http'),
        url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
        authSecretRef: secretRefSchema.optional(),
        ...runtimeCommon,
      }),
    ],
    { error: 'runtime.type must be "builtin" or "http"' },
  )
  .superRefine((r, ctx) => {
    if (r.typicalSeconds > r.timeoutSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['typicalSeconds'],
        message: `must not exceed timeoutSeconds (${r.timeoutSeconds}${r.timeoutSeconds === 600 ? ', the default' : ''})`,
      });
    }
  });

/** One capability of a model: what input it takes, what it costs, how it runs. */
export const variantSchema = strict({
  inputSchema: inputSchemaSchema,
  pricing: pricingSchema,
  runtime: runtimeSchema,
});

export type InputSchema = z.infer<typeof inputSchemaSchema>;
export type InputProperty = z.infer<typeof inputPropertySchema>;
export type Pricing = z.infer<typeof pricingSchema>;
export type PricingUnit = Pricing['unit'];
export type Runtime = z.infer<typeof runtimeSchema>;
export type RuntimeType = Runtime['type'];
export type PodSettings = z.infer<typeof podSchema>;
export type VariantSpec = z.infer<typeof variantSchema>;
