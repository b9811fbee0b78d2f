import { Router } from 'express';
import { AppError } from '../../errors.ts';
import type { Authenticator } from '../auth.ts';
import { parseBody, parseQuery, requireJson } from '../body.ts';
import { locals } from '../request.ts';
import { listJson } from './list.ts';
import { EstimateRequest, JobListQuery, SubmitRequest } from './schemas.ts';
import type { JobService } from './service.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Spec 4.1 to 4.4 and the job list. Handlers hold no try/catch: errors go to problem.ts. */
export function jobRoutes(service: JobService, auth: Authenticator): Router {
  const r = Router();

  r.post('/v1/jobs/submit', auth.require('submit_job'), requireJson, async (req, res) => {
    locals(res).route = '/v1/jobs/submit';
    // Spec 7 names INVALID_INPUT for a submit that is not right; VALIDATION_ERROR is presign's.
    const { model, version, input, webhookUrl } = parseBody(SubmitRequest, req.body, 'INVALID_INPUT');
    const idempotencyKey = req.get('idempotency-key');
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new AppError('MALFORMED_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    const { duplicate, ...result } = await service.submit(locals(res).principal!, {
      model,
      // null is absent (generated clients send it for unset fields)
      version: version ?? undefined,
      input,
      webhookUrl: webhookUrl ?? undefined,
      idempotencyKey,
      requestId: locals(res).requestId,
    });
    locals(res).jobId = result.jobId;
    if (duplicate) res.setHeader('Idempotent-Replayed', 'true');
    res.json(result);
  });

  r.post('/v1/jobs/estimate', auth.require('check_status'), requireJson, async (req, res) => {
    locals(res).route = '/v1/jobs/estimate';
    const body = parseBody(EstimateRequest, req.body, 'INVALID_INPUT');
    res.json(
      service.estimate(
        locals(res).principal!,
        body.model,
        body.version ?? undefined,
        body.input ?? undefined,
      ),
    );
  });

  r.get('/v1/jobs', auth.require('check_status'), async (req, res) => {
    locals(res).route = '/v1/jobs';
    const q = parseQuery(JobListQuery, req.query);
    res.type('json').send(listJson(await service.list(locals(res).principal!, q)));
  });

  r.get('/v1/jobs/:jobId', auth.require('check_status'), async (req, res) => {
    locals(res).route = '/v1/jobs/:jobId';
    locals(res).jobId = req.params.jobId as string;
    res.type('json').send(await service.recordJson(locals(res).principal!, req.params.jobId as string));
  });

  r.post('/v1/jobs/:jobId/cancel', auth.require('submit_job'), async (req, res) => {
    locals(res).route = '/v1/jobs/:jobId/cancel';
    locals(res).jobId = req.params.jobId as string;
    res.json(await service.cancel(locals(res).principal!, req.params.jobId as string));
  });

  return r;
}
