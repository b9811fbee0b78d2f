import { afterAll, beforeAll, expect, it } from 'vitest';
import { JOB_LABEL } from '../../src/controller/job/pod.ts';
import type { KubeHttp } from '../../src/k8s/http.ts';
import { eventually } from '../support/cluster.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';
const KEEP_S = 6;

/** The Pod DELETEs the controller sends to the apiserver, by Pod name, with their outcome. */
const deletes = new Map<string, string[]>();

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack('pod-deletes', {
    slots: 4,
    // A finished job's stopped Pod is kept this long (kubectl logs), then deleted.
    env: { GENJOBS_KEEP_FINISHED: `${KEEP_S}s` },
    // The controller talks to the real apiserver; its calls are only counted on the way.
    controllerIdentity: async (admin) => {
      const http = new Proxy(admin.http, {
        get(target, prop, receiver) {
          if (prop !== 'send') return Reflect.get(target, prop, receiver);
          const send: KubeHttp['send'] = async (method, path, ...rest) => {
            const pod = method === 'DELETE' ? /\/pods\/([^/?]+)$/.exec(path)?.[1] : undefined;
            if (!pod) return target.send(method, path, ...rest);
            const outcomes = deletes.get(pod) ?? [];
            deletes.set(pod, outcomes);
            try {
              await target.send(method, path, ...rest);
              outcomes.push('ok');
            } catch (err) {
              outcomes.push(String((err as { code?: number }).code ?? err));
              throw err;
            }
          };
          return send;
        },
      });
      return { ...admin, http };
    },
  });
});
afterAll(async () => {
  await s?.stop();
});

it("keeps a finished job's stopped worker Pod for GENJOBS_KEEP_FINISHED, then deletes it once, not again on each wake-up before its cache catches up", async () => {
  const key = await s.account({ name: 'acme', grantMicroCents: 10_000_000 });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await s.call('/v1/jobs/submit', {
      method: 'POST',
      key,
      json: { model: IMAGE, input: { prompt: `a kite ${i}` } },
    });
    expect(res.status).toBe(200);
    ids.push((await res.json()).jobId);
  }
  await eventually(
    async () => {
      const jobs = await Promise.all(ids.map((id) => s.r.jobs.get(id)));
      return jobs.every((j) => j?.status?.phase === 'completed');
    },
    90_000,
    'every job completed',
  );
  const workerPods = async () =>
    (await s.kube.core.listNamespacedPod({ namespace: s.kube.namespace, labelSelector: JOB_LABEL })).items;
  const kept = await workerPods();
  const endedAt = Math.min(
    ...(await Promise.all(
      ids.map(async (id) => Date.parse((await s.r.jobs.get(id))?.status?.completedAt ?? '')),
    )),
  );
  // Seen before the first job's keep was over: all four Pods are still there, stopped.
  if (Date.now() < endedAt + KEEP_S * 1_000 - 500) {
    expect(kept.map((p) => [p.metadata?.name, p.status?.phase]).sort()).toEqual(
      ids.map((id) => [`gj-${id}-1`, 'Succeeded']).sort(),
    );
  }
  await eventually(async () => (await workerPods()).length === 0, 30_000, 'every worker Pod gone');
  // Not before its keep was over (completedAt has whole seconds: a second's slack).
  expect(Date.now()).toBeGreaterThanOrEqual(endedAt + (KEEP_S - 1) * 1_000);
  // Wake-ups that come after the Pods are gone (the settlements' writes, the jobs' requeues)
  // still find the Pods in a lagging cache for a moment: give them that moment.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(Object.fromEntries(deletes)).toEqual(Object.fromEntries(ids.map((id) => [`gj-${id}-1`, ['ok']])));
});
