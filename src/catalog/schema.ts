/**
 * The shape of one catalog YAML document: what one data key of a catalog ConfigMap holds.
 * Every section is optional, so a platform team can keep one ConfigMap per provider and
 * another for the shared categories. docs/catalog.md has a complete example.
 */
import { z } from 'zod';
import { strict, variantSchema } from './schema-variant.ts';

export * from './schema-variant.ts';

/** Provider ids and model names: the first two parts of a slug, safe in a URL path. */
const SLUG_PART = /^[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?$/;
/** Capabilities, categories and capability groups: lowercase words joined by hyphens. */
const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const VERSION = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

export const slugPartSchema = z.string().regex(SLUG_PART, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} must be lowercase letters, digits, ".", "_" or "-", starting and ending with a letter or digit`,
});
export const idSchema = z.string().regex(ID, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} must be lowercase words joined by "-", e.g. text-to-video`,
});

const colorSchema = z
  .string({ error: 'must be a hex colour in quotes, e.g. "#4F46E5" (an unquoted # starts a YAML comment)' })
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex colour, e.g. "#4F46E5"');
const urlSchema = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

export const providerSchema = strict({
  id: slugPartSchema,
  name: z.string().min(1),
  description: z.string().default(''),
  logoUrl: urlSchema,
  website: urlSchema,
  color: colorSchema,
});

export const categorySchema = strict({
  id: idSchema,
  name: z.string().min(1),
  description: z.string().default(''),
});

/** Display metadata for one capability; its id is the capability value. */
export const capabilityGroupSchema = strict({
  id: idSchema,
  displayName: z.string().min(1),
  label: z.string().min(1),
  icon: z.string().min(1),
  color: colorSchema,
  order: z.number().int(),
});

/** `- v1.0` is shorthand for `- {version: v1.0, stable: true}`. */
const versionSchema = z.preprocess(
  (v) => (typeof v === 'string' || typeof v === 'number' ? { version: v } : v),
  strict({
    version: z
      .string({ error: 'must be a string like "v1.0"' })
      .regex(VERSION, 'must look like v<major>.<minor>, e.g. v1.0'),
    stable: z.boolean().default(true),
  }),
);

export const modelSchema = strict({
  provider: slugPartSchema,
  /** The model_name part of the slug `<provider>/<name>/<capability>`. */
  name: slugPartSchema,
  displayName: z.string().min(1),
  description: z.string().default(''),
  category: idSchema,
  tags: z.array(z.string().min(1)).default([]),
  ratings: strict({ average: z.number().min(0).max(5), count: z.number().int().nonnegative() }).default({
    average: 0,
    count: 0,
  }),
  visibility: z.enum(['public', 'segment', 'private']).default('public'),
  /** With visibility: segment, the account segments that see the model. */
  segments: z.array(z.string().min(1)).min(1).optional(),
  /** The capability the two-part slug names; the first variant when omitted. */
  defaultCapability: idSchema.optional(),
  versions: z.array(versionSchema).min(1, 'needs at least one version'),
  /** capability → variant, one per capability. */
  variants: z.record(idSchema, variantSchema),
}).superRefine((m, ctx) => {
  const capabilities = Object.keys(m.variants);
  if (capabilities.length === 0)
    ctx.addIssue({ code: 'custom', path: ['variants'], message: 'needs at least one variant' });
  if (m.defaultCapability !== undefined && !capabilities.includes(m.defaultCapability)) {
    ctx.addIssue({
      code: 'custom',
      path: ['defaultCapability'],
      message: `"${m.defaultCapability}" is not one of the variants (${capabilities.join(', ')})`,
    });
  }
  if (m.visibility === 'segment' && !m.segments) {
    ctx.addIssue({ code: 'custom', path: ['segments'], message: 'visibility: segment needs segments: [..]' });
  }
  if (m.visibility !== 'segment' && m.segments) {
    ctx.addIssue({
      code: 'custom',
      path: ['segments'],
      message: 'segments only apply with visibility: segment',
    });
  }
  const seen = new Set<string>();
  m.versions.forEach((v, i) => {
    if (seen.has(v.version))
      ctx.addIssue({ code: 'custom', path: ['versions', i], message: `duplicate version ${v.version}` });
    seen.add(v.version);
  });
  if (!m.versions.some((v) => v.stable)) {
    ctx.addIssue({ code: 'custom', path: ['versions'], message: 'needs at least one stable version' });
  }
});

export const catalogDocumentSchema = strict({
  providers: z.array(providerSchema).default([]),
  categories: z.array(categorySchema).default([]),
  capabilityGroups: z.array(capabilityGroupSchema).default([]),
  models: z.array(modelSchema).default([]),
});

/** One parsed, validated catalog YAML document. */
export type CatalogDocument = z.infer<typeof catalogDocumentSchema>;
/** A provider as the catalog declares it (also the shape served, plus modelCount). */
export type Provider = z.infer<typeof providerSchema>;
export type Category = z.infer<typeof categorySchema>;
export type CapabilityGroup = z.infer<typeof capabilityGroupSchema>;
/** A model entry as written in YAML, validated and with defaults filled in. */
export type ModelSpec = z.infer<typeof modelSchema>;
export type Visibility = ModelSpec['visibility'];
export type Version = ModelSpec['versions'][number];
export type Ratings = ModelSpec['ratings'];
