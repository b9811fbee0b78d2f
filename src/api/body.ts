import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, type ErrorCode, type FieldError } from '../errors.ts';
import { continueIfExpected } from '../expect-continue.ts';
import { repeatedName } from './json-keys.ts';

/**
 * Reads a request's JSON body into `req.body`, for the authenticator to call once it knows
 * the caller (see AuthenticatorOptions.readBody): a body from an unknown caller is never
 * read, so it costs the api neither memory nor time, and a client that sent `Expect:
 * 100-continue` is told 401 before it uploads (Node's automatic 100 is off: server.ts).
 * A GET or HEAD has no body to read (RFC 9110 9.3.1: content there means nothing); a body
 * not declared JSON is left for the route to refuse (requireJson: 415) or ignore; a JSON
 * one must parse (400) within `limit` (413).
 */
export function jsonBodyReader(limit: number): (req: Request, res: Response) => Promise<void> {
  // Not strict: JSON that is not an object or array (null, "", 7) parses, and is then refused
  // as the wrong shape (422) by the route that reads it, as [1,2] is; not as unparseable (400).
  const texts = new WeakMap<IncomingMessage, string>();
  const parse = express.json({
    limit,
    strict: false,
    type: 'application/json',
    verify: (req, _res, body) => {
      texts.set(req, decoded(body));
    },
  });
  return (req, res) => {
    if (!hasBody(req) || !req.is('application/json') || req.method === 'GET' || req.method === 'HEAD') {
      return Promise.resolve();
    }
    // Refused by its declared length before a 100 Continue invites the bytes (the parser
    // would refuse it too, but only once they were on their way).
    if (Number(req.get('content-length') ?? 0) > limit) {
      throw new AppError('PAYLOAD_TOO_LARGE', 'request body is too large');
    }
    // JSON is UTF-8 (RFC 8259 8.1): a body declared in another charset is refused as such,
    // whatever its bytes, rather than read as that charset or as UTF-8.
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.get('content-type') ?? '')?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `request bodies must be JSON in UTF-8; charset=${charset} is not (send charset=utf-8 or none)`,
      );
    }
    continueIfExpected(req, res);
    return new Promise((resolve, reject) =>
      parse(req, res, (err?: unknown) => {
        if (err) return reject(err);
        const text = texts.get(req);
        const repeated = text === undefined ? undefined : repeatedName(text);
        if (repeated === undefined) return resolve();
        reject(
          new AppError(
            'MALFORMED_REQUEST',
            `the request body gives ${repeated} more than once; give each name once`,
          ),
        );
      }),
    );
  };
}

/**
 * The body's text, for the check of repeated names. JSON is UTF-8 (RFC 8259 8.1; the reader
 * refused any other declared charset): bytes that are not are refused, not read as U+FFFD.
 */
function decoded(body: Buffer): string {
  if (!isUtf8(body)) {
    // A plain error: body-parser sets the status on it (problem.ts makes it MALFORMED_REQUEST).
    throw Object.assign(new Error('the request body is not valid UTF-8'), { status: 400 });
  }
  return body.toString('utf8');
}

function hasBody(req: Request): boolean {
  return Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
}

/** Refuses a request whose body is not declared JSON (415); a route that reads a body says so. */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  if (hasBody(req) && !req.is('application/json')) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'request bodies must be JSON (Content-Type: application/json)',
    );
  }
  next();
}

/**
 * zod issues as JSON pointers into the body. A whole number past the schema's own bound is
 * also past JavaScript's safe integers, which `.int()` checks as well; only the schema's
 * bound is said ("must be at most 100", not that and 9007199254740991 too).
 */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const bounded = new Set(issues.filter((i) => isBound(i) && i.origin === 'number').map((i) => pathKey(i)));
  const said = issues.filter((i) => !(isBound(i) && i.origin === 'int' && bounded.has(pathKey(i))));
  return said.map((i) => {
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

function isBound(i: z.core.$ZodIssue): i is z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall {
  return i.code === 'too_big' || i.code === 'too_small';
}

const pathKey = (i: z.core.$ZodIssue) => JSON.stringify(i.path);

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
      if (issue.origin === 'number' || issue.origin === 'int') {
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
  // A whole number in a query is its digits: Number() would also read 0x5, 1e1, +3 and " 5".
  const loose = Object.keys(schema.shape).filter(
    (name) =>
      typeof query[name] === 'string' && isWholeNumber(schema.shape[name]) && !/^[0-9]+$/.test(query[name]),
  );
  if (loose.length > 0) {
    throw new AppError('VALIDATION_ERROR', `invalid request: ${loose.join(', ')} must be a whole number`, {
      errors: loose.map((name) => ({ pointer: `/${name}`, message: 'must be a whole number (digits only)' })),
    });
  }
  return parseBody(schema, { ...query });
}

/** Whether a query field is a whole number (a z.number().int(), maybe optional or with a default). */
function isWholeNumber(field: z.ZodType | undefined): boolean {
  let inner: unknown = field;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap();
  return inner instanceof z.ZodNumber && inner.isInt;
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
