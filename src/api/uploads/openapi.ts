import { z } from 'zod';
import { REQUEST_ID_EXAMPLE } from '../jobs/schemas.ts';
import { addOperations, component } from '../openapi.ts';
import { PresignRequest, PresignResult, UploadRecord } from './schemas.ts';

/** The `{success, data, requestId}` envelope of the upload endpoints (spec 4.5, 4.6), its example around the data's. */
const wrapped = (data: z.ZodType) =>
  z.object({ success: z.literal(true), data, requestId: z.string() }).meta({
    examples: [
      {
        success: true,
        data: (data.meta()?.examples as unknown[] | undefined)?.[0],
        requestId: REQUEST_ID_EXAMPLE,
      },
    ],
  });

const PresignAnswer = component('PresignResponse', wrapped(component('Presign', PresignResult)));
const UploadAnswer = component('UploadResponse', wrapped(component('Upload', UploadRecord)));

// Registered once, when the upload routes are first loaded.
addOperations([
  {
    method: 'post',
    path: '/v1/uploads/presign',
    operationId: 'presignUpload',
    summary:
      'Presign an upload: PUT the file to uploadUrl within 15 minutes; it is deleted 60 minutes after creation',
    security: 'bearer',
    scope: 'submit_job',
    body: PresignRequest,
    responses: { 200: PresignAnswer },
    links: { GetUpload: { operationId: 'getUpload', parameters: { id: '$response.body#/data/fileId' } } },
    errors: [400, 401, 403, 413, 415, 503],
  },
  {
    method: 'get',
    path: '/v1/uploads/{id}',
    operationId: 'getUpload',
    summary: 'Get an upload of the account',
    security: 'bearer',
    responses: { 200: UploadAnswer },
    errors: [400, 401, 404],
  },
]);
