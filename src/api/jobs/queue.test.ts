import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../catalog/index.ts';
import type { Listener } from '../../k8s/informer.ts';
import type { GenerationJob, GenerationJobStatus } from '../../k8s/types.ts';
import { QueueView } from './queue.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const VIDEO = 'genjobs/reference-video/text-to-video';

/** A job cache with indexes, standing in for the informer. */
function fakeCache() {
  const jobs = new Map<string, GenerationJob>();
  const indexes = new Map<string, (j: GenerationJob) => string[]>();
  const listeners: Listener<GenerationJob>[] = [];
  return {
    addIndex: (name: string, f: (j: GenerationJob) => string[]) => void indexes.set(name, f),
    byIndex: (name: string, value: string) =>
      [...jobs.values()].filter((j) => indexes.get(name)!(j).includes(value)),
    on: (l: Listener<GenerationJob>) => void listeners.push(l),
    set(job: GenerationJob) {
      jobs.set(job.metadata.name ?? '', job);
      for (const l of listeners) l('update', job);
    },
    remove(job: GenerationJob) {
      jobs.delete(job.metadata.name ?? '');
      for (const l of listeners) l('delete', job);
    },
  };
}

function aJob(
  name: string,
  createdS: number,
  status: GenerationJobStatus = {},
  duration = 8,
  more: Record<string, unknown> = {},
): GenerationJob {
  return {
    metadata: { name, creationTimestamp: new Date(T0 + createdS * 1000).toISOString() },
    spec: { account: 'a', model: VIDEO, version: 'v1.0', input: { duration, ...more }, costMicroCents: 1 },
    status,
  } as unknown as GenerationJob;
}

const catalog = (maxConcurrency: number) => () =>
  ({
    variantsBySlug: new Map([
      [
        VIDEO,
        {
          runtime: { typicalSeconds: 240, maxConcurrency },
          pricing: { perSecond: { field: 'duration' } },
          inputSchema: {
            type: 'object',
            properties: {
              prompt: { type: 'string' },
              duration: { type: 'integer', enum: [4, 6, 8] },
              has_sound: { type: 'boolean', default: true },
            },
          },
        },
      ],
    ]),
  }) as unknown as Catalog;

describe('QueueView', () => {
  it('numbers waiting jobs oldest first and plays the slots forward at the typical time', () => {
    const cache = fakeCache();
    const now = T0 + 100_000;
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => now });
    cache.set(
      aJob('running', 0, {
        phase: 'processing',
        attempts: 1,
        startedAt: new Date(T0 + 40_000).toISOString(),
      }),
    );
    cache.set(aJob('second', 20));
    cache.set(aJob('first', 10));
    const first = q.record(aJob('first', 10));
    const second = q.record(aJob('second', 20));
    expect([first.queuePosition, second.queuePosition]).toEqual([0, 1]);
    // running: 240 s from T0+40 s → ends T0+280 s; first ends 240 s later, second 240 s after that.
    expect(first.estimatedCompletionTime).toBe(new Date(T0 + 520_000).toISOString());
    expect(second.estimatedCompletionTime).toBe(new Date(T0 + 760_000).toISOString());
    const running = q.record(
      aJob('running', 0, {
        phase: 'processing',
        attempts: 1,
        startedAt: new Date(T0 + 40_000).toISOString(),
      }),
    );
    expect(running.queuePosition).toBeUndefined();
    expect(running.estimatedCompletionTime).toBe(new Date(T0 + 280_000).toISOString());
  });

  it('gives the waiting jobs of a paused variant positions but no estimate, until it runs again', () => {
    const cache = fakeCache();
    let now = T0 + 100_000;
    let slots = 0;
    const q = new QueueView({ jobs: cache, catalog: () => catalog(slots)(), now: () => now });
    const running = aJob('running', 0, {
      phase: 'processing',
      attempts: 1,
      startedAt: new Date(T0 + 40_000).toISOString(),
    });
    cache.set(running);
    cache.set(aJob('first', 10));
    cache.set(aJob('second', 20));
    const fields = (name: string, s: number) => {
      const r = q.record(aJob(name, s));
      return [r.queuePosition, r.estimatedCompletionTime];
    };
    expect([fields('first', 10), fields('second', 20), fields('new', 30)]).toEqual([
      [0, undefined],
      [1, undefined],
      [2, undefined],
    ]);
    // Paused after it started: the running job still ends when expected.
    expect(q.record(running).estimatedCompletionTime).toBe(new Date(T0 + 280_000).toISOString());
    slots = 1;
    now += 5_000;
    expect(fields('first', 10)).toEqual([0, new Date(T0 + 520_000).toISOString()]);
    expect(fields('new', 30)[1]).toBe(new Date(T0 + 1_000_000).toISOString());
  });

  it('gives the waiting jobs of a variant gone from the catalog positions but no estimate', () => {
    const cache = fakeCache();
    let listed = true;
    let now = T0 + 100_000;
    const q = new QueueView({
      jobs: cache,
      catalog: () => (listed ? catalog(1)() : ({ variantsBySlug: new Map() } as unknown as Catalog)),
      now: () => now,
    });
    cache.set(aJob('first', 10));
    expect(q.record(aJob('first', 10)).estimatedCompletionTime).toBeDefined();
    listed = false;
    now += 5_000; // estimates are played again at least every 2 s
    expect(
      [q.record(aJob('first', 10)), q.record(aJob('new', 30))].map((r) => r.estimatedCompletionTime),
    ).toEqual([undefined, undefined]);
    expect(q.record(aJob('first', 10)).queuePosition).toBe(0);
  });

  it("says when the first of an account's unfinished jobs should end, within 1 to 60 s", () => {
    const cache = fakeCache();
    let now = T0 + 100_000;
    let slots = 1;
    const q = new QueueView({ jobs: cache, catalog: () => catalog(slots)(), now: () => now });
    const done = aJob('done', 0, { phase: 'completed', completedAt: new Date(T0).toISOString() });
    // Running since T0+40 s for a 240 s run: it ends at T0+280 s; the waiting one 240 s later.
    const running = aJob('running', 0, {
      phase: 'processing',
      attempts: 1,
      startedAt: new Date(T0 + 40_000).toISOString(),
    });
    const waiting = aJob('waiting', 10);
    for (const j of [done, running, waiting]) cache.set(j);
    expect(q.firstFinishIn([done, running, waiting])).toBe(60); // 180 s away: look again sooner
    now = T0 + 250_000;
    expect(q.firstFinishIn([done, waiting, running])).toBe(30);
    expect(q.firstFinishIn([waiting])).toBe(60);
    now = T0 + 300_000; // overdue: it may end any moment
    expect(q.firstFinishIn([running])).toBe(1);
    expect(q.firstFinishIn([done])).toBeUndefined();
    slots = 0; // paused: the waiting job has no estimate, and no time to wait can be told
    now += 60_000;
    expect(q.firstFinishIn([waiting])).toBe(60);
    expect(q.firstFinishIn([])).toBeUndefined();
  });

  it('learns run times per unit of work from completions, after five of them', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(2), now: () => T0 + 1_000_000 });
    for (let i = 0; i < 5; i++) {
      cache.set(
        aJob(
          `done${i}`,
          i,
          {
            phase: 'completed',
            startedAt: new Date(T0).toISOString(),
            completedAt: new Date(T0 + 16_000).toISOString(),
          },
          8,
        ),
      );
    }
    expect(q.runTimes.count(VIDEO)).toBe(5);
    // 2 s per second of video: a 4 s clip with a free slot takes 8 s.
    const fresh = q.record(aJob('new', 999, {}, 4));
    expect(fresh.estimatedCompletionTime).toBe(new Date(T0 + 1_008_000).toISOString());
  });

  it("learns runs the cache no longer holds (the archive's) once each, and a waiting job's estimate follows at once", () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => T0 + 1_000_000 });
    const waiting = aJob('waiting', 999, {}, 4);
    cache.set(waiting);
    const done = (i: number) =>
      aJob(`archived${i}`, i, {
        phase: 'completed',
        startedAt: new Date(T0 + i * 100_000).toISOString(),
        completedAt: new Date(T0 + i * 100_000 + 16_000).toISOString(),
      });
    // The archive's view of a job: its run, not its resource.
    const run = (i: number) => {
      const job = done(i);
      return {
        id: job.metadata.name ?? '',
        model: job.spec.model,
        input: job.spec.input,
        startedAt: job.status?.startedAt ?? '',
        completedAt: job.status?.completedAt ?? '',
      };
    };
    cache.set(done(0)); // one of them still in the cache too
    // The typical time (240 s) while fewer than five runs are known.
    expect(q.record(waiting).estimatedCompletionTime).toBe(new Date(T0 + 1_240_000).toISOString());
    expect(q.learnRuns([0, 1, 2, 3, 4].map(run))).toBe(4);
    expect(q.learnRuns([run(4)])).toBe(0);
    expect(q.runTimes.count(VIDEO)).toBe(5);
    // 2 s per second of video, as the five 8 s videos ran.
    expect(q.record(waiting).estimatedCompletionTime).toBe(new Date(T0 + 1_008_000).toISOString());
  });

  it('learns what a closed-set input field costs: videos without sound (the default has it) run faster', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(2), now: () => T0 + 1_000_000 });
    for (let i = 0; i < 8; i++) {
      const silent = i % 2 === 1;
      const status = {
        phase: 'completed' as const,
        startedAt: new Date(T0).toISOString(),
        completedAt: new Date(T0 + (silent ? 8_000 : 16_000)).toISOString(),
      };
      cache.set(aJob(`done${i}`, i, status, 8, silent ? { has_sound: false } : {}));
    }
    const eta = (more: Record<string, unknown>) =>
      Date.parse(
        q.record(aJob(`new${JSON.stringify(more)}`, 999, {}, 8, more)).estimatedCompletionTime ?? '',
      );
    expect(eta({ has_sound: false }) - (T0 + 1_000_000)).toBeCloseTo(8_000, -1);
    expect(eta({}) - (T0 + 1_000_000)).toBeCloseTo(16_000, -1);
  });

  it('a running job past its expected end is never shown ending in the past, nor are the jobs behind it', () => {
    const cache = fakeCache();
    let now = T0;
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => now });
    const running = aJob('running', 0, {
      phase: 'processing',
      attempts: 1,
      startedAt: new Date(T0).toISOString(),
    });
    cache.set(running);
    cache.set(aJob('next', 1));
    const eta = (job: GenerationJob) => Date.parse(q.record(job).estimatedCompletionTime ?? '');
    expect(eta(running)).toBe(T0 + 240_000);
    // Read near its expected end (a small margin left), then past that with nothing in the cache moved.
    now = T0 + 239_900;
    expect(eta(running)).toBe(now + 1_000);
    now = T0 + 241_000;
    expect(eta(running)).toBeGreaterThan(now);
    expect(eta(aJob('next', 1))).toBeGreaterThan(now + 240_000);
  });

  it('a job whose worker Pod the cluster refuses keeps its place but has no estimate, takes no slot, and gets one back once a Pod is made', () => {
    const cache = fakeCache();
    const now = T0 + 10_000;
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => now });
    const refused = (status: 'True' | 'False') => ({
      conditions: [{ type: 'PodRefused', status, reason: 'Forbidden', lastTransitionTime: '' }],
    });
    const retry = aJob('retry', 0, {
      phase: 'processing',
      attempts: 1,
      startedAt: new Date(T0).toISOString(),
      ...refused('True'),
    });
    const first = aJob('first', 1, refused('True'));
    const second = aJob('second', 2);
    for (const j of [retry, first, second]) cache.set(j);
    const fields = (job: GenerationJob) => {
      const r = q.record(job);
      return [r.queuePosition, r.estimatedCompletionTime && Date.parse(r.estimatedCompletionTime)];
    };
    expect(fields(retry)).toEqual([undefined, undefined]);
    // The refused retry still holds its slot until it was due to end; the refused first job
    // takes none, so the second starts after the retry's expected end.
    expect(fields(first)).toEqual([0, undefined]);
    expect(fields(second)).toEqual([1, T0 + 480_000]);
    // The concurrency limit's Retry-After: no estimate, so not "1 s" while nothing can start.
    expect(q.firstFinishIn([retry, first])).toBe(60);
    const made = aJob('first', 1, refused('False'));
    cache.set(made);
    expect(fields(made)).toEqual([0, T0 + 480_000]);
    expect(fields(second)).toEqual([1, T0 + 720_000]);
  });

  it('a job not yet in the cache queues behind every waiting one', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => T0 });
    cache.set(aJob('waiting', 0));
    expect(q.queueFields(aJob('unseen', 5)).queuePosition).toBe(1);
  });

  it('finished jobs carry no queue fields', () => {
    const q = new QueueView({ jobs: fakeCache(), catalog: catalog(1), now: () => T0 });
    expect(q.queueFields(aJob('x', 0, { phase: 'failed' }))).toEqual({});
  });

  it('positions stay exact as jobs join in the middle of the queue and leave it', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => T0 });
    for (const [name, at] of [
      ['b', 1],
      ['d', 1],
      ['a', 0],
    ] as const)
      cache.set(aJob(name, at));
    // Same creation second: the controller admits by name, so c comes between b and d.
    cache.set(aJob('c', 1));
    const position = (name: string, at: number) => q.queueFields(aJob(name, at)).queuePosition;
    expect(['a', 'b', 'c', 'd'].map((n, i) => position(n, i === 0 ? 0 : 1))).toEqual([0, 1, 2, 3]);
    cache.set(aJob('b', 1, { phase: 'cancelled' }));
    expect([position('a', 0), position('c', 1), position('d', 1)]).toEqual([0, 1, 2]);
    cache.remove(aJob('a', 0));
    expect([position('c', 1), position('d', 1)]).toEqual([0, 1]);
  });

  it('tells listeners whether the queue moved: when a job starts, not when one joins or its status notes it waits', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => T0 });
    const moves: Array<[string, boolean]> = [];
    q.on((_type, job, moved) => moves.push([job.metadata.name ?? '', moved]));
    cache.set(aJob('first', 0));
    q.queueFields(aJob('first', 0)); // a reader plays the queue
    cache.set(aJob('second', 1));
    cache.set(aJob('second', 1, { conditions: [] })); // the controller notes it waits: no move
    cache.set(aJob('first', 0, { phase: 'processing', attempts: 1, startedAt: new Date(T0).toISOString() }));
    expect(moves).toEqual([
      ['first', false],
      ['second', false],
      ['second', false],
      ['first', true],
    ]);
  });

  it('a job joining at the end takes the next free slot of the current play', () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(2), now: () => T0 });
    const eta = (name: string, at: number) =>
      Date.parse(q.queueFields(aJob(name, at)).estimatedCompletionTime!);
    cache.set(aJob('one', 0));
    expect(eta('one', 0)).toBe(T0 + 240_000);
    cache.set(aJob('two', 1));
    cache.set(aJob('three', 2));
    // Two slots: two start now, the third when the first ends.
    expect([eta('two', 1), eta('three', 2)]).toEqual([T0 + 240_000, T0 + 480_000]);
    // What a submit answers before the cache shows its job: behind all three.
    expect(eta('four', 3)).toBe(T0 + 480_000);
    expect(q.queueFields(aJob('four', 3)).queuePosition).toBe(3);
  });

  it("numbers another tenant's job ahead of one tenant's backlog, and estimates it so at once", () => {
    const cache = fakeCache();
    const q = new QueueView({ jobs: cache, catalog: catalog(1), now: () => T0 });
    const of = (account: string, job: GenerationJob) =>
      ({ ...job, spec: { ...job.spec, account } }) as GenerationJob;
    const started = { phase: 'processing' as const, attempts: 1, startedAt: new Date(T0).toISOString() };
    cache.set(of('heavy', aJob('running', 0, started)));
    for (let i = 1; i <= 5; i++) cache.set(of('heavy', aJob(`h${i}`, i)));
    q.queueFields(of('heavy', aJob('h1', 1))); // a reader plays the queue
    // Before the cache shows it (the submit's answer), and after.
    const light = of('light', aJob('l1', 10));
    // One slot: after the running job (240 s), then its own 240 s; not after the backlog.
    expect(q.queueFields(light)).toEqual({
      queuePosition: 0,
      estimatedCompletionTime: new Date(T0 + 480_000).toISOString(),
    });
    cache.set(light);
    const fields = q.queueFields(light);
    expect(fields.queuePosition).toBe(0);
    // One slot: after the running job (240 s), then its own 240 s.
    expect(fields.estimatedCompletionTime).toBe(new Date(T0 + 480_000).toISOString());
    expect(q.queueFields(of('heavy', aJob('h1', 1))).queuePosition).toBe(1);
    expect(q.queueFields(of('heavy', aJob('h5', 5))).queuePosition).toBe(5);
  });
});
