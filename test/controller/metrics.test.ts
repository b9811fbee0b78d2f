import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('metrics');
});
afterAll(async () => s?.stop());

/** One sample of a scrape: the value of `name{labels}` (labels matched as a substring). */
function sample(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(name) && (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(labels),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

it('after jobs finish, a scrape shows submits, transitions and money moved by the right amounts', async () => {
  const key = await s.account({ name: 'acme', plan: 'pro' });
  const scrape = async () => ({
    api: await (await fetch(`${s.api.url}/metrics`)).text(),
    ctl: await (await fetch(`${s.controller.url}/metrics`)).text(),
  });
  const before = await scrape();
  const model = 'genjobs/reference-image/text-to-image';
  const submit = async (input: Record<string, unknown>) =>
    (
      await (
        await s.call('/v1/jobs/submit', {
          method: 'POST',
          key,
          json: { model: input.image ? 'genjobs/reference-image/edit-image' : model, input },
        })
      ).json()
    ).jobId as string;
  const ok = [await submit({ prompt: 'a' }), await submit({ prompt: 'b', resolution: '4k' })];
  const bad = await submit({ prompt: 'c', image: 'http://127.0.0.1:1/none.png' });
  for (const id of [...ok, bad])
    await eventually(
      async () => ['completed', 'failed'].includes((await s.r.jobs.get(id))?.status?.phase ?? ''),
      60_000,
      id,
    );
  await eventually(
    async () => Object.keys((await s.r.accounts.get('acme'))?.status?.reservations ?? {}).length === 0,
    10_000,
    'settled',
  );
  const after = await scrape();
  const delta = (which: 'api' | 'ctl', name: string, labels = '') =>
    sample(after[which], name, labels) - sample(before[which], name, labels);

  expect(delta('api', 'genjobs_jobs_submitted_total', `model="${model}"`)).toBe(2);
  expect(delta('api', 'genjobs_jobs_submitted_total', 'model="genjobs/reference-image/edit-image"')).toBe(1);
  expect(delta('api', 'genjobs_credits_charged_microcents_total')).toBe(134_000 + 241_200 + 134_000);
  expect(delta('api', 'genjobs_http_request_duration_seconds_count', 'route="/v1/jobs/submit"')).toBe(3);
  expect(delta('ctl', 'genjobs_job_transitions_total', 'to="completed"')).toBe(2);
  expect(delta('ctl', 'genjobs_job_transitions_total', 'to="failed"')).toBe(1);
  expect(delta('ctl', 'genjobs_jobs_finished_total', `model="${model}",phase="completed"`)).toBe(2);
  expect(delta('ctl', 'genjobs_credits_refunded_microcents_total')).toBe(134_000);
  // Which failures: the model's, or the service's (a code each).
  expect(
    delta(
      'ctl',
      'genjobs_jobs_failed_total',
      'model="genjobs/reference-image/edit-image",code="GENERATION_FAILED"',
    ),
  ).toBe(1);
  expect(sample(after.ctl, 'genjobs_controller_leader')).toBe(1);
  // Each process reports the catalog it loaded (the controller's stayed 0).
  expect(sample(after.ctl, 'genjobs_catalog_models')).toBe(sample(after.api, 'genjobs_catalog_models'));
  expect(sample(after.ctl, 'genjobs_catalog_models')).toBeGreaterThan(0);
  expect(sample(after.ctl, 'genjobs_jobs', 'phase="completed"')).toBe(2);
  expect(after.ctl).toContain('process_resident_memory_bytes');
  // Labels stay low-cardinality: no job id ever appears in a series.
  for (const id of [...ok, bad]) expect(after.api + after.ctl).not.toContain(id);
});
