import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCatalog, type CatalogProblem, type CatalogSource } from './load.ts';
import { aCategory, aGroup, aModel, aProvider, aVariant, catalogOf, source } from './test-fixtures.ts';

const base = { providers: [aProvider()], categories: [aCategory()] };

function errorsOf(...sources: CatalogSource[]): CatalogProblem[] {
  const result = buildCatalog(sources);
  if (result.ok) throw new Error('expected the catalog to be refused');
  return result.errors;
}

function withVariant(variant: Record<string, unknown>) {
  return source('cm', withVariantDoc(variant));
}

function withVariantDoc(variant: Record<string, unknown>) {
  return { ...base, models: [aModel().withVariant('text-to-image', variant).build()] };
}

describe('buildCatalog: the document schema', () => {
  it.each([
    [
      'an unknown top-level key',
      source('cm', { ...base, modles: [] }),
      /\(document\): unknown key "modles" \(allowed: providers, categories, capabilityGroups, models\)/,
    ],
    [
      'an unknown model key',
      source('cm', { ...base, models: [aModel().with({ colour: 'red' }).build()] }),
      /models\[0\] \(acme\/model\): unknown key "colour" \(allowed: provider, name, displayName/,
    ],
    [
      'an unknown pricing key',
      withVariant(aVariant({ pricing: { baseCredits: 1, unit: 'per_generation', perUnit: 2 } })),
      /variants\.text-to-image\.pricing: unknown key "perUnit"/,
    ],
    [
      'an uppercase model name',
      source('cm', { ...base, models: [aModel('acme', 'Big_Model').build()] }),
      /models\[0\] \(acme\/Big_Model\)\.name: "Big_Model" must be lowercase/,
    ],
    [
      'a slash in a provider id',
      source('cm', { providers: [aProvider('ac/me')] }),
      /providers\[0\]\.id: "ac\/me" must be lowercase/,
    ],
    [
      'a bad capability key',
      source('cm', { ...base, models: [aModel().withVariant('Text To Image').build()] }),
      /variants/,
    ],
    [
      'an unquoted colour',
      {
        name: 'cm',
        documents: {
          'p.yaml':
            'providers:\n  - id: acme\n    name: A\n    logoUrl: https://a.example/l.svg\n    website: https://a.example\n    color: #112233\n',
        },
      },
      /p\.yaml, line \d+, column \d+: providers\[0\]\.color: must be a hex colour in quotes/,
    ],
    [
      'a version that is not v<major>.<minor>',
      source('cm', {
        ...base,
        models: [
          aModel()
            .with({ versions: ['1.0'] })
            .build(),
        ],
      }),
      /versions\[0\]\.version: must look like v<major>\.<minor>/,
    ],
    [
      'no stable version',
      source('cm', {
        ...base,
        models: [
          aModel()
            .with({ versions: [{ version: 'v1.0', stable: false }] })
            .build(),
        ],
      }),
      /versions: needs at least one stable version/,
    ],
    [
      'a duplicate version',
      source('cm', {
        ...base,
        models: [
          aModel()
            .with({ versions: ['v1.0', 'v1.0'] })
            .build(),
        ],
      }),
      /duplicate version v1\.0/,
    ],
    [
      'a defaultCapability that is not a variant',
      source('cm', { ...base, models: [aModel().with({ defaultCapability: 'edit-image' }).build()] }),
      /defaultCapability: "edit-image" is not one of the variants \(text-to-image\)/,
    ],
    [
      'segment visibility without segments',
      source('cm', { ...base, models: [aModel().with({ visibility: 'segment' }).build()] }),
      /segments: visibility: segment needs segments/,
    ],
    [
      'segments on a public model',
      source('cm', {
        ...base,
        models: [
          aModel()
            .with({ segments: ['beta'] })
            .build(),
        ],
      }),
      /segments only apply with visibility: segment/,
    ],
    [
      'per_second without perSecond',
      withVariant(aVariant({ pricing: { baseCredits: 1, unit: 'per_second' } })),
      /pricing\.perSecond: unit per_second needs perSecond/,
    ],
    [
      'a base price past the most an account can hold',
      withVariant(aVariant({ pricing: { baseCredits: 4_000_000_000_000_001, unit: 'per_generation' } })),
      /baseCredits: at most 1000000000000000, the most an account can hold/,
    ],
    [
      'a multiplier that is not a decimal',
      withVariant(
        aVariant({
          pricing: { baseCredits: 1, unit: 'per_generation', multipliers: { resolution: { '1k': 'x' } } },
        }),
      ),
      /multipliers\.resolution\.1k: must be a non-negative decimal/,
    ],
    [
      'an unknown runtime type',
      withVariant(aVariant({ runtime: { type: 'docker', maxConcurrency: 1, typicalSeconds: 1 } })),
      /runtime/,
    ],
    [
      'a negative maxConcurrency',
      withVariant(aVariant({ runtime: { type: 'builtin', maxConcurrency: -1, typicalSeconds: 1 } })),
      /runtime\.maxConcurrency/,
    ],
    [
      'a url on a builtin runtime',
      withVariant(
        aVariant({
          runtime: { type: 'builtin', url: 'https://x.example', maxConcurrency: 1, typicalSeconds: 1 },
        }),
      ),
      /runtime: unknown key "url"/,
    ],
    [
      'an http runtime without url',
      withVariant(aVariant({ runtime: { type: 'http', maxConcurrency: 1, typicalSeconds: 1 } })),
      /runtime\.url/,
    ],
    [
      'typicalSeconds above timeoutSeconds',
      withVariant(aVariant({ runtime: { type: 'builtin', maxConcurrency: 1, typicalSeconds: 700 } })),
      /typicalSeconds: must not exceed timeoutSeconds/,
    ],
    [
      'an inputSchema that is not an object schema',
      withVariant(aVariant({ inputSchema: { type: 'string', properties: {} } })),
      /inputSchema\.type: inputSchema must have type: object/,
    ],
    [
      'a YAML syntax error',
      { name: 'cm', documents: { 'a.yaml': 'providers: [\n' } },
      /a\.yaml, line \d+, column \d+: /,
    ],
    [
      'a YAML duplicate key',
      { name: 'cm', documents: { 'a.yaml': 'providers: []\nproviders: []\n' } },
      /a\.yaml, line 2, column 1: Map keys must be unique/,
    ],
  ])('%s is refused with a message that says where', (_name, src, message) => {
    const errors = errorsOf(src);
    expect(errors.map((e) => e.message).join('\n')).toMatch(message);
    expect(errors.every((e) => e.source === 'cm')).toBe(true);
  });

  it('reports every problem of a document, not just the first', () => {
    const errors = errorsOf(source('cm', { providers: [aProvider('A')], categories: [aCategory('Image')] }));
    expect(errors).toHaveLength(2);
  });
});

describe('buildCatalog: checks across documents', () => {
  it.each([
    [
      'an undeclared provider',
      { ...base, models: [aModel('nobody').build()] },
      /provider "nobody" is not declared/,
    ],
    [
      'an undeclared category',
      { ...base, models: [aModel().with({ category: 'audio' }).build()] },
      /\.category: category "audio" is not declared/,
    ],
    [
      'a priced field missing from the inputSchema',
      {
        ...base,
        models: [
          aModel()
            .withVariant(
              'text-to-image',
              aVariant({
                pricing: { baseCredits: 1, unit: 'per_generation', multipliers: { quality: { high: 2 } } },
              }),
            )
            .build(),
        ],
      },
      /multipliers\.quality: "quality" is not a property of the inputSchema/,
    ],
    [
      'an enum value with no factor',
      {
        ...base,
        models: [
          aModel()
            .withVariant(
              'text-to-image',
              aVariant({
                pricing: {
                  baseCredits: 1,
                  unit: 'per_generation',
                  multipliers: { resolution: { '1k': 1, '2k': 1 } },
                },
              }),
            )
            .build(),
        ],
      },
      /multipliers\.resolution: no factor for "4k", which the inputSchema accepts/,
    ],
    [
      'an inputSchema ajv cannot compile (a misspelt keyword)',
      {
        ...base,
        models: [
          aModel()
            .withVariant(
              'text-to-image',
              aVariant({
                inputSchema: { type: 'object', properties: { prompt: { type: 'string', minLenght: 1 } } },
                pricing: { baseCredits: 1, unit: 'per_generation' },
              }),
            )
            .build(),
        ],
      },
      /variants\.text-to-image\.inputSchema: does not compile: strict mode: unknown keyword: "minLenght"/,
    ],
    [
      'an unknown format',
      {
        ...base,
        models: [
          aModel()
            .withVariant(
              'text-to-image',
              aVariant({
                inputSchema: { type: 'object', properties: { u: { type: 'string', format: 'urll' } } },
                pricing: { baseCredits: 1, unit: 'per_generation' },
              }),
            )
            .build(),
        ],
      },
      /unknown format "urll"/,
    ],
    [
      'a default outside its enum (the job nobody chose would be refused), said once, not as a missing factor',
      withVariantDoc(
        aVariant({
          inputSchema: {
            type: 'object',
            properties: {
              prompt: { type: 'string' },
              resolution: { type: 'string', enum: ['1k', '2k'], default: '8k' },
            },
          },
          pricing: {
            baseCredits: 1,
            unit: 'per_generation',
            multipliers: { resolution: { '1k': 1, '2k': 2 } },
          },
        }),
      ),
      /^[^\n]*inputSchema\.properties\.resolution\.default: "8k" is not a value the field accepts \(must be equal to one of the allowed values: "1k", "2k"\)$/,
    ],
    [
      'a $ref on an input field (pricing and defaults would not see behind it)',
      withVariantDoc(
        aVariant({
          inputSchema: {
            type: 'object',
            definitions: { res: { type: 'string', enum: ['1k', '4k'], default: '4k' } },
            properties: { prompt: { type: 'string' }, resolution: { $ref: '#/definitions/res' } },
          },
          pricing: { baseCredits: 1, unit: 'per_generation' },
        }),
      ),
      /inputSchema\.properties\.resolution\.\$ref: is not supported on an input field: write the field out/,
    ],
    [
      'a builtin runtime for a capability it cannot run',
      { ...base, models: [aModel().withVariant('image-to-video', aVariant()).build()] },
      /variants\.image-to-video\.runtime: the builtin runtime runs text-to-image, edit-image, text-to-video, not "image-to-video": give this variant an http runtime/,
    ],
    [
      'typicalSeconds over the default timeout, naming it',
      withVariantDoc(aVariant({ runtime: { type: 'builtin', maxConcurrency: 1, typicalSeconds: 700 } })),
      /typicalSeconds: must not exceed timeoutSeconds \(600, the default\)/,
    ],
  ])('%s is refused', (_name, doc, message) => {
    expect(
      errorsOf(source('cm', doc))
        .map((e) => e.message)
        .join('\n'),
    ).toMatch(message);
  });

  it('a model slug declared in two ConfigMaps is refused against both, naming both', () => {
    const errors = errorsOf(
      source('acme-models', base, { models: [aModel().build()] }),
      source('other-team', { models: [aModel().build()] }),
    );
    expect(errors.map((e) => e.source).sort()).toEqual(['acme-models', 'other-team']);
    for (const error of errors) {
      expect(error.message).toMatch(
        /model "acme\/model" is declared twice: in ConfigMap "acme-models" \(doc-1\.yaml, models\[0\] \(acme\/model\)\) and in ConfigMap "other-team" \(doc-0\.yaml/,
      );
    }
  });

  it.each([
    ['provider', { providers: [aProvider()] }, /provider "acme" is declared twice/],
    ['category', { categories: [aCategory()] }, /category "image" is declared twice/],
    [
      'capability group',
      { capabilityGroups: [aGroup('text-to-image', 1)] },
      /capability group "text-to-image" is declared twice/,
    ],
  ])('a %s id declared in two ConfigMaps is refused naming both', (_kind, dup, message) => {
    const errors = errorsOf(
      source('a', { ...base, capabilityGroups: [aGroup('text-to-image', 1)] }),
      source('b', dup),
    );
    expect(errors).toHaveLength(2);
    expect(errors[0]?.message).toMatch(message);
    expect(errors[0]?.message).toContain('ConfigMap "a"');
    expect(errors[0]?.message).toContain('ConfigMap "b"');
  });

  it('a duplicate inside one ConfigMap is reported once', () => {
    expect(errorsOf(source('a', { ...base, models: [aModel().build(), aModel().build()] }))).toHaveLength(1);
  });

  it('capability groups are optional per capability, and a group needs no variant', () => {
    const catalog = catalogOf(
      source('cm', {
        ...base,
        capabilityGroups: [aGroup('image-to-video', 2)],
        models: [aModel().withVariant('edit-image').build()],
      }),
    );
    expect(catalog.variants.map((v) => v.capability)).toEqual(['edit-image']);
  });
});

describe('buildCatalog: merging', () => {
  const sources = [
    source('z-shared', { categories: [aCategory('image'), aCategory('video')] }),
    source('b-provider', { providers: [aProvider('bravo')], models: [aModel('bravo', 'one').build()] }),
    source('a-provider', { providers: [aProvider('acme')], models: [aModel('acme', 'two').build()] }),
  ];

  it('merges sources by name, whatever order they come in', () => {
    const forward = catalogOf(...sources);
    const backward = catalogOf(...[...sources].reverse());
    expect(forward.models.map((m) => m.slug)).toEqual(['acme/two', 'bravo/one']);
    expect(backward.models.map((m) => m.slug)).toEqual(forward.models.map((m) => m.slug));
    expect(forward.providers.map((p) => p.id)).toEqual(['acme', 'bravo']);
    expect(forward.models[0]?.source).toBe('a-provider');
  });

  it('accepts several documents in one key, anchors and merge keys', () => {
    const yaml = [
      'providers: [{id: acme, name: A, logoUrl: "https://a.example/l.svg", website: "https://a.example", color: "#123"}]',
      '---',
      'categories: [{id: image, name: Image}]',
      'models:',
      '  - provider: acme',
      '    name: m',
      '    displayName: M',
      '    category: image',
      '    versions: [v1.0, {version: v2.0, stable: false}]',
      '    variants:',
      '      text-to-image: &v',
      '        inputSchema: {type: object, properties: {prompt: {type: string}}}',
      '        pricing: {baseCredits: 5, unit: per_generation}',
      '        runtime: &rt {type: builtin, maxConcurrency: 1, typicalSeconds: 30}',
      '      edit-image:',
      '        <<: *v',
      '        runtime: {<<: *rt, maxConcurrency: 0}',
    ].join('\n');
    const catalog = catalogOf({ name: 'cm', documents: { 'all.yaml': yaml } });
    const [t2i, edit] = catalog.models[0]?.variants ?? [];
    expect(t2i?.runtime.maxConcurrency).toBe(1);
    expect(edit?.runtime).toEqual({
      type: 'builtin',
      maxConcurrency: 0,
      timeoutSeconds: 600,
      typicalSeconds: 30,
    });
    expect(catalog.models[0]?.spec).toMatchObject({
      visibility: 'public',
      tags: [],
      ratings: { average: 0, count: 0 },
      description: '',
    });
  });

  it('an empty set of sources, or empty documents, make an empty catalog', () => {
    expect(catalogOf().variants).toEqual([]);
    expect(
      catalogOf({ name: 'cm', documents: { 'a.yaml': '', 'b.yaml': '# nothing yet\n' } }).models,
    ).toEqual([]);
  });
});

describe('docs/catalog.md', () => {
  it('its complete example builds', async () => {
    const markdown = await readFile(new URL('../../docs/catalog.md', import.meta.url), 'utf8');
    const configMap = parse(/```yaml\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '') as {
      metadata: { name: string };
      data: Record<string, string>;
    };
    const catalog = catalogOf({ name: configMap.metadata.name, documents: configMap.data });
    expect(catalog.variants.map((v) => v.slug)).toEqual([
      'acme/sharp-v2/text-to-image',
      'acme/sharp-v2/edit-image',
    ]);
    expect(catalog.variants[1]?.runtime).toMatchObject({
      type: 'http',
      maxConcurrency: 2,
      typicalSeconds: 30,
    });
    expect(catalog.models[0]?.currentVersion).toBe('v1.1');
  });
});
