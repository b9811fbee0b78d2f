import type { NextFunction, Request, Response } from 'express';
import { locals } from '../request.ts';

/**
 * The upload API wraps every answer (`{success, data, requestId}`, spec 4.5 and 4.6), its
 * errors too (`success: false` in the problem body): presign, upload status and the
 * presigned PUT (`/files/uploads/…`). Marked on arrival, before anything can refuse the
 * request (a 405, a 401), so no refusal goes out unwrapped. Worker output PUTs and public
 * file reads are left as they are.
 */
export function markWrappedUploadRequests(req: Request, res: Response, next: NextFunction): void {
  // Express routes /V1/Uploads/… here too: the mark must not depend on case.
  const path = req.path.toLowerCase();
  if (path === '/v1/uploads' || path.startsWith('/v1/uploads/')) locals(res).wrapped = true;
  else if (req.method === 'PUT' && req.path.startsWith('/files/uploads/')) locals(res).wrapped = true;
  next();
}
