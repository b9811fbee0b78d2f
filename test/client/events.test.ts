import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents, type SseEvent } from '../../src/client/sse.ts';
import { eventually } from '../support/cluster.ts';
import { componentValidator } from '../support/contract.ts';
import { type E2e, startE2e } from '../support/e2e.ts';

let s: E2e;
let key: string;
let otherKey: string;
const IMAGE = 'genjobs/reference-image/text-to-image';

beforeAll(async () => {
  s = await startE2e('client-events', { slots: 2 });
  key = await s.account({ name: 'acme' });
  otherKey = await s.account({ name: 'other' });
});
afterAll(async () => {
  await s?.stop();
});

async function submit(input: Record<string, unknown> = { prompt: 'a lighthouse' }) {
  const res = await s.call('/v1/jobs/submit', { method: 'POST', key, json: { model: IMAGE, input } });
  expect(res.status).toBe(200);
  return (await res.json()).jobId as string;
}

/** Opens the event stream and reads it to its end (or until `until` says stop). */
async function stream(jobId: string, headers: Record<string, string> = {}, k = key) {
  const res = await fetch(`${s.url}/v1/jobs/${jobId}/events`, {
    headers: { authorization: `Bearer ${k}`, ...headers },
  });
  const events: SseEvent[] = [];
  if (res.ok && res.body && res.status === 200) for await (const e of readEvents(res.body)) events.push(e);
  const records = events.map((e) => JSON.parse(e.data));
  // The document says each event's data is a Job: hold every record to it, as the contract
  // check holds JSON answers (it does not read streams).
  const isJob = componentValidator('Job');
  for (const r of records)
    if (!isJob(r)) throw new Error(`event data is not a Job: ${JSON.stringify(isJob.errors)}`);
  return { res, events, records };
}

describe('GET /v1/jobs/{jobId}/events', () => {
  it('streams every change of a job and ends after the terminal record', async () => {
    const jobId = await submit();
    const { res, events, records } = await stream(jobId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(events.every((e) => e.event === 'job' && e.id)).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(records.at(-1)).toMatchObject({ jobId, status: 'completed', progress: 100 });
    expect(records.at(-1).output).toMatch(/^http/);
    // The stream's records are the GET record: the last one equals what GET answers now.
    const got = await (await s.call(`/v1/jobs/${jobId}`, { key })).json();
    expect(records.at(-1)).toEqual(got);
  });

  it('a finished job: one event, then the end; resuming from it answers 204', async () => {
    const jobId = await submit();
    await stream(jobId); // to the end
    const { events } = await stream(jobId);
    expect(events).toHaveLength(1);
    // As sent: the reconnection time rides in the event's block, so a parser that hands out
    // every block (not only those with data) sees the one event only.
    const raw = await (
      await fetch(`${s.url}/v1/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${key}` } })
    ).text();
    expect(raw).toMatch(/^retry: 2000\nid: [^\n]+\nevent: job\ndata: \{[^\n]+\}\n\n$/);
    const resumed = await stream(jobId, { 'last-event-id': events[0]!.id! });
    expect(resumed.res.status).toBe(204);
    // Its resource is written again (its webhook delivery is recorded so): the record is the
    // same, and so is the answer to a client that holds it.
    const before = (await s.r.jobs.get(jobId))!.metadata.resourceVersion;
    await s.r.jobs.patchStatus(jobId, {
      status: { webhook: { id: 'msg_test', state: 'delivered', attempts: 1 } },
    });
    expect((await s.r.jobs.get(jobId))!.metadata.resourceVersion).not.toBe(before);
    // The api's cache follows within milliseconds.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await stream(jobId, { 'last-event-id': events[0]!.id! })).res.status).toBe(204);
  });

  it('resuming with an older Last-Event-ID sends the current record', async () => {
    const jobId = await submit();
    const first = await stream(jobId);
    const { events, records } = await stream(jobId, { 'last-event-id': first.events[0]!.id! });
    expect(events).toHaveLength(1);
    expect(records[0].status).toBe('completed');
  });

  it("answers another account's job with 403 and an unknown job with 404, as GET does", async () => {
    const jobId = await submit();
    const denied = await s.call(`/v1/jobs/${jobId}/events`, { key: otherKey });
    expect(denied.status).toBe(403);
    expect((await denied.json()).code).toBe('UNAUTHORIZED_ACCESS');
    const missing = await s.call('/v1/jobs/00000000-0000-0000-0000-000000000000/events', { key });
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('JOB_NOT_FOUND');
    const anonymous = await s.call(`/v1/jobs/${jobId}/events`);
    expect(anonymous.status).toBe(401);
  });

  it('pending records carry a queue position and an ETA; finished ones neither', async () => {
    const ids = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => submit({ prompt: `queue ${i}` })));
    // A job the api's cache does not show yet (a moment after its submit) is placed behind
    // every waiting job it knows, so two such jobs may share a place: read once all are cached.
    const records = await eventually(
      async () => {
        const all = await Promise.all(
          ids.map(async (id) => (await s.call(`/v1/jobs/${id}`, { key })).json()),
        );
        const pending = all.filter((r) => r.status === 'pending').map((r) => r.queuePosition);
        return new Set(pending).size === pending.length && all;
      },
      10_000,
      'every job cached, each pending one in its own place',
    );
    for (const r of records) {
      if (r.status === 'pending') {
        expect(r.queuePosition).toBeGreaterThanOrEqual(0);
        expect(Date.parse(r.estimatedCompletionTime)).toBeGreaterThan(Date.parse(r.createdAt));
      } else if (r.status === 'processing') {
        expect(r.queuePosition).toBeUndefined();
        expect(r.estimatedCompletionTime).toBeDefined();
      }
    }
    const done = await stream(ids.at(-1)!);
    expect(done.records.at(-1).queuePosition).toBeUndefined();
    expect(done.records.at(-1).estimatedCompletionTime).toBeUndefined();
  });
});
