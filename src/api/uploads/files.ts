import { Router } from 'express';
import { locals } from '../request.ts';

/**
 * The blob store's `/files` router with the upload PUT (`/files/uploads/…`, the presigned
 * `uploadUrl` of spec 4.5) counted as part of the wrapped upload API: its errors carry
 * `success: false` like those of presign and upload status. Worker output PUTs and public
 * reads are left as they are.
 */
export function withWrappedUploadPuts(files: Router): Router {
  const r = Router();
  r.use((req, res, next) => {
    if (req.method === 'PUT' && req.path.startsWith('/uploads/')) locals(res).wrapped = true;
    next();
  });
  r.use(files);
  return r;
}
