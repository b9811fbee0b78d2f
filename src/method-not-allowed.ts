import type { NextFunction, Request, Response } from 'express';
import { AppError } from './errors.ts';

/**
 * Answers a method a path does not have (RFC 9110 15.5.6): 405 METHOD_NOT_ALLOWED with
 * `Allow`, so a client learns it used the wrong method, not a wrong address; OPTIONS gets
 * 204 with the same `Allow`. For the API's paths (api/app.ts) and the files (blob/routes.ts).
 */
export function refuseMethod(
  req: Request,
  res: Response,
  next: NextFunction,
  allowed: readonly string[],
): void {
  const allow = [...new Set([...allowed, 'OPTIONS'])].sort().join(', ');
  res.setHeader('Allow', allow);
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  const path = req.baseUrl + req.path;
  next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; allowed: ${allow}`));
}
