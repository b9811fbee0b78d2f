import { beforeAll, describe, expect, it } from 'vitest';
import { AppError, type FieldError } from '../errors.ts';
import type { Catalog, Variant } from './catalog.ts';
import { createInputCompiler, prepareInput, publishedInputSchema } from './input.ts';
import { checkInputBounds, MAX_INPUT_BYTES, MAX_INPUT_DEPTH } from './input-limits.ts';
import { loadDefaultCatalog } from './load.ts';
import { aModel, aVariant, catalogWith } from './test-fixtures.ts';

let catalog: Catalog;
const variant = (capability: string): Variant =>
  catalog.variants.find((v) => v.capability === capability) ?? (undefined as never);

beforeAll(async () => {
  catalog = await loadDefaultCatalog();
});

function failures(v: Variant, input: unknown): FieldError[] {
  try {
    prepareInput(v, input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_INPUT');
    return (error as AppError).errors ?? [];
  }
  throw new Error('expected INVALID_INPUT');
}

describe('prepareInput: defaults', () => {
  it.each([
    ['text-to-image', { prompt: 'a cat' }, { prompt: 'a cat', aspect_ratio: '1:1', resolution: '1k' }],
    [
      'edit-image',
      { prompt: 'a hat', image_urls: ['https://cdn.example/a.png'] },
      { prompt: 'a hat', image_urls: ['https://cdn.example/a.png'], aspect_ratio: '1:1', resolution: '1k' },
    ],
    [
      'text-to-video',
      { prompt: 'waves' },
      { prompt: 'waves', aspect_ratio: '16:9', resolution: '720p', duration: 8, has_sound: true },
    ],
    [
      'text-to-image',
      { prompt: 'x', resolution: '4k', seed: 7 },
      { prompt: 'x', aspect_ratio: '1:1', resolution: '4k', seed: 7 },
    ],
  ])('%s fills in what is omitted and keeps what is given', (capability, input, expected) => {
    expect(prepareInput(variant(capability), input)).toEqual(expected);
  });

  it('does not modify the object it is given', () => {
    const input = { prompt: 'waves', duration: '6' };
    prepareInput(variant('text-to-video'), input);
    expect(input).toEqual({ prompt: 'waves', duration: '6' });
  });
});

describe('prepareInput: the two accepted shapes', () => {
  it.each([
    [{ duration: '8' }, { duration: 8 }],
    [{ duration: 8 }, { duration: 8 }],
    [{ duration: '4' }, { duration: 4 }],
    [{ has_sound: 'true' }, { has_sound: true }],
    [{ has_sound: 'false' }, { has_sound: false }],
    [{ has_sound: false }, { has_sound: false }],
    [{ seed: '42' }, { seed: 42 }],
  ])('text-to-video takes %o as %o', (given, expected) => {
    expect(prepareInput(variant('text-to-video'), { prompt: 'p', ...given })).toMatchObject(expected);
  });

  it('a number is accepted where the schema wants one of an enum of strings', () => {
    const stringly = catalogWith(
      aModel().withVariant(
        'text-to-video',
        aVariant({
          inputSchema: {
            type: 'object',
            properties: { duration: { type: 'string', enum: ['4', '8'] }, prompt: { type: 'string' } },
          },
          pricing: { baseCredits: 1, unit: 'per_generation' },
        }),
      ),
    ).variants[0]!;
    expect(prepareInput(stringly, { duration: 8 })).toEqual({ duration: '8' });
    expect(failures(stringly, { prompt: 8 })).toEqual([
      { pointer: '/input/prompt', message: 'must be string' },
    ]);
  });

  it('edit-image takes a single image URL as image_urls', () => {
    expect(
      prepareInput(variant('edit-image'), { prompt: 'p', image: 'https://cdn.example/a.png' }),
    ).toMatchObject({
      image_urls: ['https://cdn.example/a.png'],
    });
  });

  it.each([
    [
      'both image and image_urls',
      { prompt: 'p', image: 'https://a.example/1.png', image_urls: [] },
      '/input/image',
    ],
    ['an image that is not a URL', { prompt: 'p', image: 'not a url' }, '/input/image'],
    // Workers fetch http(s) and read data: URIs; anything else would fail the job after its charge.
    ['a file: URL', { prompt: 'p', image: 'file:///etc/passwd' }, '/input/image'],
    [
      'an ftp: URL in image_urls',
      { prompt: 'p', image_urls: ['ftp://a.example/1.png'] },
      '/input/image_urls/0',
    ],
    ['neither', { prompt: 'p' }, '/input/image_urls'],
    ['an empty image_urls', { prompt: 'p', image_urls: [] }, '/input/image_urls'],
  ])('edit-image with %s fails at %s', (_name, input, pointer) => {
    expect(failures(variant('edit-image'), input).map((e) => e.pointer)).toEqual([pointer]);
  });

  it('names image among the known fields of edit-image, beside image_urls', () => {
    const [unknown] = failures(variant('edit-image'), {
      prompt: 'p',
      image: 'https://cdn.example/a.png',
      bogus: 1,
    });
    expect(unknown).toEqual({
      pointer: '/input/bogus',
      message: expect.stringMatching(
        /^is not a known input field \(known: prompt, image_urls, image \(one URL\), /,
      ),
    });
  });
});

describe('prepareInput: every failing field, as a pointer into the request body', () => {
  it.each([[''], ['   '], ['\n\t']])('a blank prompt (%j) is refused before it is charged', (prompt) => {
    for (const capability of ['text-to-image', 'edit-image', 'text-to-video']) {
      const input = { prompt, image_urls: ['https://cdn.example/a.png'] };
      const errors = failures(variant(capability), capability === 'edit-image' ? input : { prompt });
      expect(errors.find((e) => e.pointer === '/input/prompt')?.message).toBe('must not be blank');
    }
    expect(prepareInput(variant('text-to-image'), { prompt: ' a cat ' }).prompt).toBe(' a cat ');
  });

  it('reports all of them at once', () => {
    const errors = failures(variant('text-to-video'), {
      prompt: '',
      duration: 5,
      resolution: '8k',
      has_sound: 'maybe',
      aspect_ratio: 3,
      seed: -1,
      style: 'noir',
    });
    expect(Object.fromEntries(errors.map((e) => [e.pointer, e.message]))).toEqual({
      '/input/prompt': 'must not be blank',
      '/input/duration': 'must be one of 4, 6, 8',
      '/input/resolution': 'must be one of "720p", "1080p", "4k"',
      '/input/has_sound': 'must be true or false',
      '/input/aspect_ratio': 'must be one of "16:9", "9:16", "1:1"',
      '/input/seed': 'must be >= 0',
      '/input/style':
        'is not a known input field (known: prompt, aspect_ratio, resolution, duration, has_sound, seed)',
    });
  });

  it.each([
    ['a missing prompt', {}, [{ pointer: '/input/prompt', message: 'is required' }]],
    [
      'a prompt past the limit',
      { prompt: 'x'.repeat(4001) },
      [{ pointer: '/input/prompt', message: 'must NOT have more than 4000 characters' }],
    ],
    [
      'a non-URL reference image',
      { prompt: 'p', image_urls: ['x', 'https://ok.example/a.png'] },
      [
        {
          pointer: '/input/image_urls/0',
          message: 'must match pattern "^(https?:|data:image/)"; must match format "uri"',
        },
      ],
    ],
    [
      'a data: URL that is not an image (refused at submit, not after it ran)',
      { prompt: 'p', image_urls: ['data:text/plain;base64,aGVsbG8='] },
      [{ pointer: '/input/image_urls/0', message: 'must match pattern "^(https?:|data:image/)"' }],
    ],
    [
      'a fractional seed',
      { prompt: 'p', seed: 1.5 },
      [{ pointer: '/input/seed', message: 'must be integer' }],
    ],
  ])('text-to-image with %s', (_name, input, expected) => {
    expect(failures(variant('text-to-image'), input)).toEqual(expected);
  });

  it.each([[null], ['a prompt'], [[{ prompt: 'p' }]], [undefined]])(
    'an input of %o is not an object',
    (input) => {
      expect(failures(variant('text-to-image'), input)).toEqual([
        { pointer: '/input', message: 'must be an object' },
      ]);
    },
  );

  it('the error message lists the failures too, for logs and clients that only read detail', () => {
    expect(() => prepareInput(variant('text-to-image'), {})).toThrow(
      "input does not match the model's inputSchema: /input/prompt is required",
    );
  });
});

describe('prepareInput: hostile field names', () => {
  it.each([['__proto__'], ['constructor'], ['toString']])(
    '%s is an unknown field, not a lookup into Object.prototype',
    (field) => {
      const input = JSON.parse(`{"prompt": "p", "${field}": {"polluted": true}}`);
      expect(failures(variant('text-to-image'), input).map((e) => e.pointer)).toEqual([`/input/${field}`]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});

describe('prepareInput: bounds on the input and on the refusal', () => {
  it('lists at most 20 field errors, with a summary of bounded length, however many items fail', () => {
    // 40,000 failing items fit in the body limit; each was once one entry of the answer.
    const input = { prompt: 'x', image_urls: Array.from({ length: 40_000 }, () => 1) };
    let error: AppError | undefined;
    try {
      prepareInput(variant('edit-image'), input);
    } catch (e) {
      error = e as AppError;
    }
    expect(error?.code).toBe('INVALID_INPUT');
    expect(error?.errors?.length).toBe(20);
    expect(error?.message).toMatch(/and 39981 more/);
    expect(JSON.stringify({ detail: error?.message, errors: error?.errors }).length).toBeLessThan(6_000);
  });

  it('refuses input nested deeper than the limit with INVALID_INPUT, not a stack overflow', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(failures(variant('text-to-image'), { prompt: 'x', nested: deep })).toEqual([
      { pointer: '/input', message: 'nested more than 32 levels deep' },
    ]);
  });

  it('refuses an input larger than 96 KiB as JSON, which could not reach the worker', () => {
    expect(failures(variant('text-to-image'), { prompt: 'x'.repeat(100 * 1024) })).toEqual([
      { pointer: '/input', message: 'larger than 98304 bytes' },
    ]);
  });

  it('accepts nesting and size up to the limits', () => {
    let deep: Record<string, unknown> = { last: true };
    for (let i = 1; i < MAX_INPUT_DEPTH; i++) deep = { a: deep };
    expect(() => checkInputBounds(deep)).not.toThrow();
    expect(() => checkInputBounds({ a: deep })).toThrow(/nested more than 32/);
    expect(() => checkInputBounds({ p: 'x'.repeat(MAX_INPUT_BYTES - 10) })).not.toThrow();
  });
});

describe('createInputCompiler: patterns', () => {
  const schema = (pattern: string) =>
    ({ type: 'object', properties: { code: { type: 'string', pattern } } }) as unknown as Parameters<
      ReturnType<typeof createInputCompiler>
    >[0];

  it('matches in linear time a pattern that backtracks exponentially in JavaScript', () => {
    // JavaScript's engine takes hours over 64 characters of these (each 2 more take 4 times
    // as long): the test would not end.
    for (const pattern of ['^(a|a)*b$', '^(\\w|\\d)+$', '^(a+)+$']) {
      const validate = createInputCompiler()(schema(pattern));
      expect(validate({ code: `${'a'.repeat(64)}!` })).toBe(false);
    }
    expect(createInputCompiler()(schema('^(a|a)*b$'))({ code: 'aaab' })).toBe(true);
  });

  it('refuses at catalog load what RE2 does not run, or does not parse, saying which', () => {
    const compile = createInputCompiler();
    expect(() => compile(schema('(?<=a)b'))).toThrow(
      /pattern "\(\?<=a\)b" does not compile: .*RE2: no lookaround/,
    );
    expect(() => compile(schema('(a)\\1'))).toThrow(/does not compile: .*invalid escape sequence/);
    expect(() => compile(schema('[unclosed'))).toThrow(/does not compile: .*missing closing \]/);
  });

  it('compiles and applies a safe pattern', () => {
    const validate = createInputCompiler()(schema('^[A-Z]{3}-[0-9]+$'));
    expect(validate({ code: 'ABC-12' })).toBe(true);
    expect(validate({ code: 'abc' })).toBe(false);
  });
});

describe('publishedInputSchema: an input that passes the schema the catalog shows is one the api takes', () => {
  const URL_1 = 'https://cdn.example/a.png';
  const accepted = (v: Variant, input: Record<string, unknown>) => {
    try {
      prepareInput(v, input);
      return true;
    } catch {
      return false;
    }
  };

  // Each input with whether both take it. Left out on purpose: a numeric string past a
  // bound ("99999999999" as a seed), which JSON Schema cannot bound and the api refuses.
  it.each<[string, Record<string, unknown>, boolean]>([
    ['text-to-video', { prompt: 'w' }, true],
    // Spec 2.13's table: duration, has_sound as strings; its catalog example: numbers.
    ['text-to-video', { prompt: 'w', duration: '8', has_sound: 'true', resolution: '1080p', seed: 7 }, true],
    ['text-to-video', { prompt: 'w', duration: 8, has_sound: false }, true],
    ['text-to-video', { prompt: 'w', duration: '5' }, false],
    ['text-to-video', { prompt: 'w', duration: 5 }, false],
    ['text-to-video', { prompt: 'w', has_sound: 'yes' }, false],
    ['text-to-video', { prompt: 'w', seed: '42' }, true],
    ['text-to-video', { prompt: 'w', seed: '4x' }, false],
    // An integer's numeric string is a whole number: "1.5" is no seed, "42.0" is 42.
    ['text-to-video', { prompt: 'w', seed: '1.5' }, false],
    ['text-to-video', { prompt: 'w', seed: '42.0' }, true],
    ['text-to-video', { prompt: 'w', seed: '-1' }, false],
    ['text-to-video', { prompt: 'w', seed: -1 }, false],
    ['text-to-video', { prompt: '   ' }, false],
    ['text-to-video', { prompt: 'w', style: 'noir' }, false],
    // The upload walk-through sends one image as `image`.
    ['edit-image', { prompt: 'p', image: URL_1 }, true],
    ['edit-image', { prompt: 'p', image_urls: [URL_1] }, true],
    ['edit-image', { prompt: 'p', image: URL_1, image_urls: [URL_1] }, false],
    ['edit-image', { prompt: 'p' }, false],
    ['edit-image', { prompt: 'p', image: 'not a url' }, false],
    ['edit-image', { prompt: 'p', image: 'file:///etc/passwd' }, false],
    ['text-to-image', { prompt: 'p', image: URL_1, resolution: '4k' }, true],
    ['text-to-image', { prompt: 'p', image: URL_1, image_urls: [URL_1] }, false],
    ['text-to-image', { prompt: 'p', seed: '12' }, true],
  ])('%s %j: %s', (capability, input, expected) => {
    const v = variant(capability);
    const validate = createInputCompiler()(publishedInputSchema(v.inputSchema));
    expect([validate(structuredClone(input)), accepted(v, input)]).toEqual([expected, expected]);
  });

  it('widens each property by the spellings coerce() takes, the declared type first', () => {
    const published = publishedInputSchema({
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1 },
        seconds: { type: 'integer', enum: [4, 8] },
        sound: { type: 'boolean' },
        mode: { type: 'string', enum: ['4', 'true', '4.0', 'fast'] },
        text: { type: 'string' },
      },
    });
    expect(published.properties).toEqual({
      count: { type: ['integer', 'string'], minimum: 1, pattern: '^[0-9]+$|^[0-9]+\\.0+$' },
      seconds: { type: ['integer', 'string'], enum: [4, 8, '4', '8'] },
      sound: { type: ['boolean', 'string'], enum: [true, false, 'true', 'false'] },
      mode: { type: ['string', 'number', 'boolean'], enum: ['4', 'true', '4.0', 'fast', 4, true] },
      text: { type: 'string' },
    });
    expect(published).not.toHaveProperty('allOf');
  });

  it('leaves out a required list that only named image_urls (draft-04 refuses an empty one)', () => {
    const only = publishedInputSchema({
      type: 'object',
      properties: { image_urls: { type: 'array', items: { type: 'string' } } },
      required: ['image_urls'],
    });
    expect(only).not.toHaveProperty('required');
    expect(only.allOf).toEqual([{ oneOf: [{ required: ['image_urls'] }, { required: ['image'] }] }]);
    const both = publishedInputSchema({
      type: 'object',
      properties: { prompt: { type: 'string' }, image_urls: { type: 'array', items: { type: 'string' } } },
      required: ['prompt', 'image_urls'],
    });
    expect(both.required).toEqual(['prompt']);
  });
});
