import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Catalog, Variant } from './catalog.ts';
import { prepareInput } from './input.ts';
import { loadDefaultCatalog } from './load.ts';
import { preparePartialInput } from './partial-input.ts';
import { price } from './pricing.ts';

let catalog: Catalog;
let video: Variant;
beforeAll(async () => {
  catalog = await loadDefaultCatalog();
  video = catalog.variantsBySlug.get('genjobs/reference-video/text-to-video')!;
});

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof AppError ? [e.code, e.errors?.map((x) => x.pointer)] : e;
  }
  return 'accepted';
};

describe('estimate input', () => {
  it.each([{ duration: 5 }, { duration: 30 }, { resolution: '8k' }, { has_sound: 'maybe' }, { nope: 1 }])(
    'refuses %j as submit does, with the same INVALID_INPUT',
    (input) => {
      const partial = codeOf(() => preparePartialInput(catalog, video, input));
      expect(partial).toEqual(codeOf(() => prepareInput(video, { prompt: 'x', ...input })));
      expect(partial).toMatchObject(['INVALID_INPUT', [expect.stringMatching(/^\/input\//)]]);
    },
  );

  it('prices input without a prompt at the defaults, as submit charges the full input', () => {
    const partial = preparePartialInput(catalog, video, { duration: '4' });
    const full = prepareInput(video, { prompt: 'x', duration: '4' });
    expect(price(video, partial).estimatedCostMicroCents).toBe(price(video, full).estimatedCostMicroCents);
    expect(price(video, preparePartialInput(catalog, video, {})).estimatedCostMicroCents).toBe(2_400_000);
  });

  it('still checks the prompt when one is sent', () => {
    expect(codeOf(() => preparePartialInput(catalog, video, { prompt: 42 }))).toEqual([
      'INVALID_INPUT',
      ['/input/prompt'],
    ]);
  });
});
