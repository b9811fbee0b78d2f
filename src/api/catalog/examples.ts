/**
 * Examples of the catalog answers for the OpenAPI document: what the shipped catalog
 * (catalog/default.yaml) answers, lists cut to their first entry, as an account with no
 * segments or discount sees it. src/api/openapi.test.ts holds them equal to those answers.
 */
export const CATALOG_EXAMPLES = {
  item: {
    slug: 'genjobs/reference-image/text-to-image',
    provider: {
      id: 'genjobs',
      name: 'genjobs reference',
      logoUrl: 'https://genjobs.io/logos/genjobs.svg',
    },
    category: 'image',
    capability: 'text-to-image',
    pricing: {
      baseCredits: 134000,
      defaultCostMicroCents: 134000,
      unit: 'per_generation',
    },
    tags: ['reference', 'fast', 'image'],
    ratings: {
      average: 0,
      count: 0,
    },
  },
  detail: {
    slug: 'genjobs/reference-image/text-to-image',
    provider: {
      id: 'genjobs',
      name: 'genjobs reference',
      logoUrl: 'https://genjobs.io/logos/genjobs.svg',
    },
    name: 'Reference Image',
    description: 'Renders a deterministic test image from the prompt and seed, or edits the given images.',
    category: 'image',
    capability: 'text-to-image',
    inputSchema: {
      type: 'object',
      properties: {
        prompt: {
          type: 'string',
          maxLength: 4000,
          pattern: '\\S',
          description: 'What to generate (not blank).',
        },
        image_urls: {
          type: 'array',
          maxItems: 4,
          items: {
            type: 'string',
            format: 'uri',
            pattern: '^(https?:|data:image/)',
          },
          description:
            'Optional reference images (upload fileUrl values); one URL may be sent as `image` instead.',
        },
        aspect_ratio: {
          type: 'string',
          enum: ['1:1', '16:9', '9:16', '4:3', '3:4'],
          default: '1:1',
        },
        resolution: {
          type: 'string',
          enum: ['1k', '2k', '4k'],
          default: '1k',
        },
        seed: {
          type: ['integer', 'string'],
          minimum: 0,
          maximum: 4294967295,
          description:
            'Same seed and input, same output. Without one, each job gets its own (a resubmit gives a new output).',
          pattern: '^[0-9]+$|^[0-9]+\\.0+$',
        },
        image: {
          type: 'string',
          format: 'uri',
          pattern: '^(https?:|data:image/)',
          description: 'One address sent instead of image_urls: the same as image_urls with this one item.',
        },
      },
      additionalProperties: false,
      required: ['prompt'],
      allOf: [
        {
          not: {
            required: ['image', 'image_urls'],
          },
        },
      ],
    },
    pricing: {
      baseCredits: 134000,
      defaultCostMicroCents: 134000,
      unit: 'per_generation',
    },
    siblings: [
      {
        slug: 'genjobs/reference-image/edit-image',
        capability: 'edit-image',
      },
    ],
  },
  provider: {
    id: 'genjobs',
    name: 'genjobs reference',
    description:
      'Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.',
    logoUrl: 'https://genjobs.io/logos/genjobs.svg',
    website: 'https://genjobs.io',
    color: '#4F46E5',
    modelCount: 3,
  },
  providerDetail: {
    id: 'genjobs',
    name: 'genjobs reference',
    description:
      'Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.',
    logoUrl: 'https://genjobs.io/logos/genjobs.svg',
    website: 'https://genjobs.io',
    color: '#4F46E5',
    models: [
      {
        slug: 'genjobs/reference-image/text-to-image',
        name: 'Reference Image',
        description:
          'Renders a deterministic test image from the prompt and seed, or edits the given images.',
        category: 'image',
        capability: 'text-to-image',
        pricing: {
          baseCredits: 134000,
          defaultCostMicroCents: 134000,
          unit: 'per_generation',
        },
        tags: ['reference', 'fast', 'image'],
      },
    ],
  },
  group: {
    id: 'text-to-video',
    displayName: 'Text to Video',
    label: 'T2V',
    icon: 'film',
    color: '#DB2777',
    order: 1,
  },
  category: {
    id: 'video',
    name: 'Video',
    description: 'Models that generate video clips.',
    modelCount: 1,
  },
  apiModels: {
    models: [
      {
        id: 'genjobs/reference-image/text-to-image',
        providerId: 'genjobs',
        providerName: 'genjobs reference',
        name: 'Reference Image',
        description:
          'Renders a deterministic test image from the prompt and seed, or edits the given images.',
        category: 'image',
        currentVersion: 'v1.0',
        versionCount: 1,
        currentVersionPricing: {
          baseCredits: 134000,
          defaultCostMicroCents: 134000,
          unit: 'per_generation',
        },
      },
    ],
  },
  providerModels: {
    provider: {
      id: 'genjobs',
      name: 'genjobs reference',
      description:
        'Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.',
      logoUrl: 'https://genjobs.io/logos/genjobs.svg',
      website: 'https://genjobs.io',
      color: '#4F46E5',
      categories: ['image', 'video'],
      isActive: true,
    },
    models: [
      {
        id: 'genjobs/reference-image/text-to-image',
        name: 'Reference Image',
        description:
          'Renders a deterministic test image from the prompt and seed, or edits the given images.',
        category: 'image',
        currentVersion: 'v1.0',
        versionCount: 1,
        currentVersionPricing: {
          baseCredits: 134000,
          defaultCostMicroCents: 134000,
          unit: 'per_generation',
        },
      },
    ],
  },
} as const;
