import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../src/dev/controlplane.ts';
import { eventually } from '../support/cluster.ts';
import { decodeImage, download } from '../support/media.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { MOTO_CREDENTIALS, startMoto } from './moto.ts';

let s: TestStack;
let moto: { endpoint: string; stop(): void };
const bucket = 'genjobs-stack';

beforeAll(async () => {
  moto = await startMoto(bucket);
  Object.assign(process.env, MOTO_CREDENTIALS);
  const port = await freePort();
  s = await startTestStack('uploads-s3', {
    slots: 2,
    env: {
      PORT: String(port),
      GENJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
      // As the chart sets it: worker Pods reach the api's Service, not the bucket.
      GENJOBS_BLOB_INTERNAL_URL: `http://127.0.0.1:${port}/files`,
      GENJOBS_BLOB_TYPE: 's3',
      GENJOBS_S3_BUCKET: bucket,
      GENJOBS_S3_ENDPOINT: moto.endpoint,
      GENJOBS_S3_FORCE_PATH_STYLE: 'true',
      GENJOBS_BLOB_PUBLIC_URL: `${moto.endpoint}/${bucket}`,
    },
  });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  moto?.stop();
});

it('with the s3 store, edit-image reads an uploaded input through the api and writes its output to the bucket', async () => {
  const key = await s.account({ name: 'acme' });
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
  const { data } = await (
    await s.call('/v1/uploads/presign', {
      method: 'POST',
      key,
      json: { filename: 'input.png', contentType: 'image/png' },
    })
  ).json();
  // The presigned PUT goes to the bucket itself; the fileUrl is the bucket's public URL.
  expect(data.uploadUrl.startsWith(moto.endpoint)).toBe(true);
  const put = await fetch(data.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: png,
  });
  expect(put.status).toBe(200);

  const submitted = await s.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: 'genjobs/reference-image/edit-image', input: { prompt: 'warmer', image: data.fileUrl } },
  });
  expect(submitted.status).toBe(200);
  const { jobId } = await submitted.json();
  const job = await eventually(
    async () => {
      const j = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
      return ['completed', 'failed'].includes(j.status) ? j : undefined;
    },
    90_000,
    'the edit to finish',
  );
  expect(job.error).toBeNull();
  expect(job.status).toBe('completed');
  expect(job.output.startsWith(`${moto.endpoint}/${bucket}/`)).toBe(true);
  const out = await download(job.output);
  expect(out.contentType).toBe('image/png');
  expect(await decodeImage(out.path)).toMatchObject({ format: 'png' });
});
