import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { AppError, type ErrorCode, type FieldError } from '../errors.ts';

/** Refuses a request whose body is not declared JSON (415) before anything parses it. */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (hasBody && !req.is('application/json')) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'request bodies must be JSON (Content-Type: application/json)',
    );
  }
  next();
}

/** zod issues as JSON pointers into the body. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.map((i) => {
    const path = i.path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1'));
    const keys = i.code === 'unrecognized_keys' ? i.keys : [];
    if (keys.length > 0) {
      return {
        pointer: `/${[...path, keys[0]].join('/')}`,
        message: `unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`,
      };
    }
    return { pointer: `/${path.join('/')}`, message: i.message };
  });
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  record: 'an object',
  object: 'an object',
  array: 'an array',
};

/**
 * Zod's default messages ("Invalid input: expected string, received undefined") as what the
 * caller should do ("is required", "must be a string"). A message the schema gives itself
 * ("a version like v1.0") wins; an issue not worded here keeps zod's.
 */
function instruction(issue: z.core.$ZodRawIssue): string | undefined {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'is required'
        : `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
    case 'too_big': {
      const n = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      const bound = issue.code === 'too_small' ? 'at least' : 'at most';
      if (issue.origin === 'string') {
        return issue.code === 'too_small' && n === 1
          ? 'must not be empty'
          : `must have ${bound} ${plural(n, 'character')}`;
      }
      if (issue.origin === 'array') return `must have ${bound} ${plural(n, 'item')}`;
      if (issue.origin === 'number') {
        const strict = issue.code === 'too_small' ? 'more than' : 'less than';
        return `must be ${issue.inclusive === false ? strict : bound} ${n}`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A URL's query parameters by {@link parseBody}, each given once: a repeated one
 * (`?status=pending&status=failed`) is refused as such, not as a value of the wrong type
 * (400 VALIDATION_ERROR).
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, unknown>): z.infer<S> {
  // Only the parameters the schema reads: one it ignores (a cache-buster) may repeat.
  const repeated = Object.keys(schema.shape).filter((name) => Array.isArray(query[name]));
  if (repeated.length > 0) {
    const errors = repeated.map((name) => ({
      pointer: `/${name}`,
      message: 'is given more than once; give it once',
    }));
    throw new AppError('VALIDATION_ERROR', `invalid request: ${repeated.join(', ')} given more than once`, {
      errors,
    });
  }
  return parseBody(schema, { ...query });
}

/**
 * Parses a request body with its schema (the same schema the OpenAPI document is made
 * from). Unknown fields are refused, every problem is listed as a JSON pointer.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  code: ErrorCode = 'VALIDATION_ERROR',
): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError(code, 'the request body must be a JSON object', {
      errors: [{ pointer: '', message: 'must be an object' }],
    });
  }
  const proto = protoKeyPointer(body);
  if (proto !== undefined) {
    throw new AppError(code, `invalid request: ${proto}: __proto__ is not an accepted field name`, {
      errors: [{ pointer: proto, message: '__proto__ is not an accepted field name' }],
    });
  }
  const result = schema.safeParse(body, { error: instruction });
  if (result.success) return result.data;
  const errors = fieldErrors(result.error.issues);
  const summary = errors.map((e) => `${e.pointer || '/'}: ${e.message}`).join('; ');
  throw new AppError(code, `invalid request: ${summary}`, { errors });
}

/**
 * The JSON pointer of the first own `__proto__` key in a parsed body, if any. JSON.parse
 * makes such a key an ordinary field, but schema parsing and object spreads drop it without a
 * word, so a client would never learn that its field was ignored. Iterative: a body of the
 * size the api accepts can nest deeper than the call stack.
 */
function protoKeyPointer(body: object): string | undefined {
  const stack: Array<[object, string]> = [[body, '']];
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!;
    if (Object.hasOwn(value, '__proto__')) return `${pointer}/__proto__`;
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'object' && child !== null) {
        stack.push([child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`]);
      }
    }
  }
  return undefined;
}
