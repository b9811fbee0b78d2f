import { describe, expect, it } from 'vitest';
import type { Informer, Listener } from '../../k8s/informer.ts';
import type { GenerationJob, JobPhase } from '../../k8s/types.ts';
import { Admission } from './admission.ts';

const MODEL = 'genjobs/reference-image/text-to-image';

/** The three informer methods Admission reads, over a plain map, with the index kept current. */
function cache() {
  const jobs = new Map<string, GenerationJob>();
  const indexers = new Map<string, (j: GenerationJob) => string[]>();
  const listeners: Listener<GenerationJob>[] = [];
  const informer = {
    addIndex: (name: string, keysOf: (j: GenerationJob) => string[]) => {
      indexers.set(name, keysOf);
    },
    byIndex: (name: string, value: string) =>
      [...jobs.values()].filter((j) => indexers.get(name)?.(j).includes(value)),
    get: (name: string) => jobs.get(name),
    list: () => [...jobs.values()],
    on: (l: Listener<GenerationJob>) => void listeners.push(l),
  };
  const remove = (name: string) => {
    const job = jobs.get(name);
    jobs.delete(name);
    if (job) for (const l of listeners) l('delete', job);
  };
  const put = (
    name: string,
    second: number,
    status: { phase?: JobPhase; attempts?: number } = {},
    account = 'acme',
    model = MODEL,
  ) => {
    jobs.set(name, {
      apiVersion: 'genjobs.io/v1alpha1',
      kind: 'GenerationJob',
      metadata: { name, creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() },
      spec: { account, model, version: 'v1.0', input: {}, costMicroCents: 1 },
      status,
    });
    for (const l of listeners) l('update', jobs.get(name)!);
    return jobs.get(name)!;
  };
  return { informer: informer as unknown as Informer<GenerationJob>, jobs, put, remove };
}

describe('Admission', () => {
  it('admits the oldest waiting jobs into the free slots, and no more', () => {
    const c = cache();
    const admission = new Admission(c.informer);
    const [a, b, d] = [c.put('a', 3), c.put('b', 1), c.put('d', 2)];
    c.put('running', 0, { phase: 'processing', attempts: 1 });
    c.put('done', 0, { phase: 'completed', attempts: 1 });
    expect([a, b, d].map((j) => admission.admits(j, 3))).toEqual([false, true, true]);
    expect(admission.next(MODEL, 3)).toEqual(['b', 'd']);
    expect(admission.admits(b, 1)).toBe(false);
  });

  it("gives a free slot to another account's first job before one account's backlog", () => {
    const c = cache();
    const admission = new Admission(c.informer);
    c.put('h-running-1', 0, { phase: 'processing', attempts: 1 }, 'heavy');
    c.put('h-running-2', 0, { phase: 'processing', attempts: 1 }, 'heavy');
    const backlog = [1, 2, 3, 4].map((s) => c.put(`h${s}`, s, {}, 'heavy'));
    const light = c.put('l1', 10, {}, 'light');
    // Two slots, both held by the heavy account: nothing starts.
    expect(admission.next(MODEL, 2)).toEqual([]);
    c.put('h-running-1', 0, { phase: 'completed', attempts: 1 }, 'heavy');
    expect(admission.next(MODEL, 2)).toEqual(['l1']);
    expect(admission.admits(light, 2)).toBe(true);
    expect(admission.admits(backlog[0]!, 2)).toBe(false);
    // Its job started, each account holds one: turns go back to the oldest job.
    admission.markStarted(light);
    c.put('l2', 11, {}, 'light');
    c.put('h-running-2', 0, { phase: 'completed', attempts: 1 }, 'heavy');
    expect(admission.next(MODEL, 2)).toEqual(['h1']);
    // h1 has turn 0; h2 and l2 turn 1 (l2's account holds one), h2 submitted first.
    expect(admission.next(MODEL, 4)).toEqual(['h1', 'h2', 'l2']);
  });

  it('counts its own starts until the cache shows them, and forgets them when it does', () => {
    const c = cache();
    const admission = new Admission(c.informer);
    const first = c.put('first', 1);
    const second = c.put('second', 2);
    admission.markStarted(first);
    expect(admission.admits(second, 1)).toBe(false);
    c.put('first', 1, { phase: 'completed', attempts: 1 });
    expect(admission.admits(second, 1)).toBe(true);
    // A started job deleted before the cache showed its start holds no slot either.
    admission.markStarted(second);
    c.remove('second');
    expect(admission.admits(c.put('third', 3), 1)).toBe(true);
  });

  it('a start marked after the cache shows the job holding its slot counts once', () => {
    // The cache's event of the admitting write can come before the Pod is created; a job
    // counted both as holding and as starting would keep a free slot taken until its Pod's
    // event, and a job refused meanwhile would wait with no event left to wake it.
    const c = cache();
    const admission = new Admission(c.informer);
    const first = c.put('first', 1, { phase: 'processing', attempts: 1 });
    admission.markStarted(first);
    expect(admission.state(MODEL, 2)).toEqual({ slots: 2, holding: 1, starting: 0, waiting: 0 });
    expect(admission.admits(c.put('second', 2), 2)).toBe(true);
  });

  it('queues only eligible jobs: an ineligible one neither starts nor holds back the next', () => {
    const c = cache();
    const admission = new Admission(c.informer, { eligible: (j) => j.metadata.name !== 'unreserved' });
    c.put('unreserved', 1);
    const next = c.put('next', 2);
    expect(admission.admits(next, 1)).toBe(true);
    expect(admission.next(MODEL, 1)).toEqual(['next']);
  });

  it('counts a job whose Pod is in the cache as started, though no status says so yet', () => {
    const c = cache();
    const withPod = new Set<string>();
    const admission = new Admission(c.informer, { hasPod: (j) => withPod.has(j.metadata.name ?? '') });
    const first = c.put('first', 1);
    const second = c.put('second', 2);
    admission.markStarted(first);
    expect(admission.starting(first)).toBe(true);
    withPod.add('first');
    admission.refresh('first');
    expect(admission.starting(first)).toBe(false);
    // A restarted controller (nothing marked) still sees the slot taken.
    expect(
      new Admission(c.informer, { hasPod: (j) => withPod.has(j.metadata.name ?? '') }).admits(second, 1),
    ).toBe(false);
  });

  it('picks the oldest of a large backlog without sorting it: next and admits agree', () => {
    const c = cache();
    const admission = new Admission(c.informer);
    const seconds = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
    const jobs = seconds.map((sec) => c.put(`j${sec}`, sec));
    expect(admission.next(MODEL, 3)).toEqual(['j0', 'j1', 'j2']);
    expect(
      jobs
        .filter((j) => admission.admits(j, 3))
        .map((j) => j.metadata.name)
        .sort(),
    ).toEqual(['j0', 'j1', 'j2']);
    expect(admission.next(MODEL, 0)).toEqual([]);
  });

  it("holds an account's jobs beyond its plan back without holding back other accounts' jobs", () => {
    const c = cache();
    const admission = new Admission(c.informer, { accountMax: (a) => (a === 'small' ? 1 : 10) });
    const OTHER = 'genjobs/reference-video/text-to-video';
    // The plan counts the account's running jobs of every model.
    c.put('small-running', 0, { phase: 'processing', attempts: 1 }, 'small', OTHER);
    const held = c.put('small-waiting', 1, {}, 'small');
    const other = c.put('big-waiting', 2, {}, 'big');
    expect(admission.admits(held, 1)).toBe(false);
    expect(admission.admits(other, 1)).toBe(true);
    expect(admission.next(MODEL, 1)).toEqual(['big-waiting']);
    c.put('small-running', 0, { phase: 'completed', attempts: 1 }, 'small', OTHER);
    expect(admission.admits(held, 1)).toBe(true);
  });

  it("a job's end frees its model's slot and its account's room under the plan: both models are looked at", () => {
    const c = cache();
    const admission = new Admission(c.informer);
    const OTHER = 'genjobs/reference-video/text-to-video';
    const THIRD = 'genjobs/reference-image/edit-image';
    c.put('small-waiting', 1, {}, 'small', OTHER);
    c.put('small-running', 2, { phase: 'processing', attempts: 1 }, 'small', OTHER);
    c.put('big-waiting', 3, {}, 'big', THIRD);
    const ended = c.put('ended', 0, { phase: 'completed', attempts: 1 }, 'small');
    expect(admission.freedBy(ended).sort()).toEqual([MODEL, OTHER].sort());
  });

  it('a slot freed shows in the next look as soon as the cache shows the end, and not before', () => {
    const c = cache();
    const admission = new Admission(c.informer);
    c.put('running', 0, { phase: 'processing', attempts: 1 });
    c.put('waiting', 1);
    // The moment this process's own write returns, the cache may still show the job running.
    expect(admission.next(MODEL, 1)).toEqual([]);
    const ended = c.put('running', 0, { phase: 'completed', attempts: 1 });
    expect(admission.freedBy(ended)).toEqual([MODEL]);
    expect(admission.next(MODEL, 1)).toEqual(['waiting']);
  });

  it("a worker that succeeded frees its slot before the job's end is written; a lost one keeps it", () => {
    const c = cache();
    const succeeded = new Set<string>();
    const admission = new Admission(c.informer, { workerDone: (j) => succeeded.has(j.metadata.name ?? '') });
    c.put('running', 0, { phase: 'processing', attempts: 1 });
    c.put('lost', 0, { phase: 'processing', attempts: 1 });
    c.put('waiting', 1);
    expect(admission.next(MODEL, 2)).toEqual([]);
    // A Pod event of a worker still running, or of one lost (retried: it needs its slot again).
    expect(admission.refresh('running')).toBeUndefined();
    expect(admission.refresh('lost')).toBeUndefined();
    succeeded.add('running');
    expect(admission.refresh('running')).toBe(MODEL);
    expect(admission.next(MODEL, 2)).toEqual(['waiting']);
    expect(admission.refresh('running')).toBeUndefined(); // freed once
    // The job's own end, written afterwards, frees nothing more.
    c.put('running', 0, { phase: 'completed', attempts: 1 });
    expect(admission.state(MODEL, 2)).toEqual({ slots: 2, holding: 1, starting: 0, waiting: 1 });
  });

  it('a job this process just started whose worker already succeeded frees its slot too', () => {
    const c = cache();
    const succeeded = new Set<string>();
    const admission = new Admission(c.informer, { workerDone: (j) => succeeded.has(j.metadata.name ?? '') });
    const first = c.put('first', 1);
    const second = c.put('second', 2);
    admission.markStarted(first);
    expect(admission.admits(second, 1)).toBe(false);
    succeeded.add('first');
    expect(admission.refresh('first')).toBe(MODEL);
    expect(admission.starting(first)).toBe(false);
    expect(admission.admits(second, 1)).toBe(true);
    // Still counted under its account's plan until its end is written.
    const small = new Admission(c.informer, {
      workerDone: (j) => succeeded.has(j.metadata.name ?? ''),
      accountMax: () => 1,
    });
    expect(small.admits(second, 5)).toBe(false);
  });

  it('tells how the slots of a model are used', () => {
    const c = cache();
    const admission = new Admission(c.informer);
    c.put('running', 0, { phase: 'processing', attempts: 1 });
    const starting = c.put('starting', 1);
    c.put('waiting', 2);
    admission.markStarted(starting);
    expect(admission.state(MODEL, 4)).toEqual({ slots: 4, holding: 2, starting: 1, waiting: 1 });
  });
});
