import { Router } from 'express';
import type { Authenticator } from '../auth.ts';
import { parseBody, requireJson } from '../body.ts';
import { locals } from '../request.ts';
import './openapi.ts';
import { PresignRequest } from './schemas.ts';
import type { UploadService } from './service.ts';

/**
 * Spec 4.5 and 4.6. Both answers are wrapped (`{success, data, requestId}`), errors too
 * (`success: false` in the problem body: wrapped.ts marks the request on arrival).
 *
 * Scope: the spec shows none for uploads (section 5: "scope not shown"). Presign needs
 * `submit_job`: it stores the caller's bytes, so a read-only key (a dashboard's
 * `list_models`, `check_status`) must not be able to fill the store. Reading an upload's
 * status takes any valid key of the account, as it changes nothing.
 */
export function uploadRoutes(service: UploadService, auth: Authenticator): Router {
  const r = Router();

  r.post('/v1/uploads/presign', auth.require('submit_job'), requireJson, async (req, res) => {
    const l = locals(res);
    l.route = '/v1/uploads/presign';
    const body = parseBody(PresignRequest, req.body);
    const data = await service.presign(l.principal!, body.filename, body.contentType);
    res.json({ success: true, data, requestId: l.requestId });
  });

  r.get('/v1/uploads/:id', auth.require(undefined), async (req, res) => {
    const l = locals(res);
    l.route = '/v1/uploads/:id';
    const data = await service.get(l.principal!, req.params.id as string);
    res.json({ success: true, data, requestId: l.requestId });
  });

  return r;
}
