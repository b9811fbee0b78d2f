import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { parseBody, parseQuery } from './body.ts';

const Request = z.strictObject({
  model: z.string().min(1).max(8),
  input: z.record(z.string(), z.unknown()),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  count: z.number().positive().optional(),
  status: z.enum(['pending', 'failed']).optional(),
  urls: z.array(z.string()).min(1).max(2).optional(),
  flag: z.boolean().optional(),
  version: z
    .string()
    .regex(/^v[0-9]+$/, 'a version like v1')
    .optional(),
});

/** The field errors a body gets, by pointer. */
function problems(body: unknown): Record<string, string> {
  try {
    parseBody(Request, body);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return Object.fromEntries((err as AppError).errors!.map((e) => [e.pointer, e.message]));
  }
  throw new Error('expected a validation error');
}

describe('parseBody: messages say what to do', () => {
  it('a missing field is required; a wrong type names the type wanted', () => {
    expect(problems({})).toEqual({ '/model': 'is required', '/input': 'is required' });
    expect(problems({ model: 5, input: [], flag: 'yes' })).toEqual({
      '/model': 'must be a string',
      '/input': 'must be an object',
      '/flag': 'must be true or false',
    });
  });

  it('bounds, choices and numbers from a query string', () => {
    expect(problems({ model: '', input: {}, limit: 'abc', status: 'done', urls: [], count: 0 })).toEqual({
      '/model': 'must not be empty',
      '/limit': 'must be a number',
      '/status': 'must be one of "pending", "failed"',
      '/urls': 'must have at least 1 item',
      '/count': 'must be more than 0',
    });
    expect(problems({ model: 'much too long', input: {}, limit: '1000', urls: ['a', 'b', 'c'] })).toEqual({
      '/model': 'must have at most 8 characters',
      '/limit': 'must be at most 100',
      '/urls': 'must have at most 2 items',
    });
  });

  it("a schema's own message wins, and unknown fields are named", () => {
    expect(problems({ model: 'm', input: {}, version: '1', extra: 1 })).toEqual({
      '/version': 'a version like v1',
      '/extra': 'unknown field: extra',
    });
  });
});

describe('parseQuery: a whole number is its digits', () => {
  const query = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });

  it.each(['0x5', '1e1', '+3', ' 5', '1.0', '5 ', ''])(
    'refuses limit=%j with 400 VALIDATION_ERROR',
    (limit) => {
      const err = (() => {
        try {
          parseQuery(query, { limit });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/limit' }] });
    },
  );

  it('a number past the safe integers is refused by the bound the schema sets, once', () => {
    const refused = (schema: z.ZodObject, q: Record<string, unknown>) => {
      try {
        parseQuery(schema, q);
      } catch (e) {
        return (e as AppError & { errors: unknown }).errors;
      }
      throw new Error('accepted');
    };
    expect(refused(query, { limit: '99999999999999999999' })).toEqual([
      { pointer: '/limit', message: 'must be at most 100' },
    ]);
    // Without a bound of its own, the safe integers' is said as a bound.
    const unbounded = z.strictObject({ n: z.coerce.number().int() });
    expect(refused(unbounded, { n: '99999999999999999999' })).toEqual([
      { pointer: '/n', message: 'must be at most 9007199254740991' },
    ]);
  });

  it('reads digits, and the default when absent', () => {
    expect(parseQuery(query, { limit: '5' })).toEqual({ limit: 5 });
    expect(parseQuery(query, {})).toEqual({ limit: 20 });
  });
});
