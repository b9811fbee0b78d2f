import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/cluster.ts';
import { memoryLogger, startTestApi, type TestService } from '../support/service.ts';

/** A client that goes away in the middle of its upload (a worker stopped, a phone offline). */
let svc: TestService;
const logs = memoryLogger();

beforeAll(async () => {
  svc = await startTestApi('uploads-abort', {}, logs.log);
});
afterAll(() => svc?.stop());

it('an upload cut off mid-body is logged as the client going away, not as an unhandled error, and stores nothing', async () => {
  const key = await svc.account({ name: 'leaver' }, ['submit_job']);
  const res = await svc.call('/v1/uploads/presign', {
    method: 'POST',
    key,
    json: { filename: 'half.png', contentType: 'image/png' },
  });
  const { uploadUrl, fileUrl } = (await res.json()).data as { uploadUrl: string; fileUrl: string };
  const local = (url: string) => `${svc.api.url}${new URL(url).pathname}${new URL(url).search}`;
  const req = http.request(local(uploadUrl), {
    method: 'PUT',
    headers: { 'content-type': 'image/png', 'content-length': 100_000 },
  });
  req.on('error', () => {});
  req.write(Buffer.alloc(40_000, 1));
  await new Promise((r) => setTimeout(r, 200));
  req.destroy();
  await eventually(
    async () => logs.lines.some((l) => l.includes('the client went away during the request')),
    5_000,
    'the log line',
  );
  expect(logs.lines.filter((l) => l.includes('unhandled error'))).toEqual([]);
  expect((await fetch(local(fileUrl))).status).toBe(404);
});
