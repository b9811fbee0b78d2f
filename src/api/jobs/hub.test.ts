import { describe, expect, it } from 'vitest';
import { jobRecord } from '../../jobs/record.ts';
import type { Listener } from '../../k8s/informer.ts';
import type { GenerationJob, JobPhase } from '../../k8s/types.ts';
import { type Stream, StreamHub } from './hub.ts';

const MODEL = 'genjobs/reference-image/text-to-image';

function aJob(name: string, phase: JobPhase, rv: string): GenerationJob {
  return {
    metadata: { name, resourceVersion: rv, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { account: 'a', model: MODEL, version: 'v1.0', input: {}, costMicroCents: 1 },
    status: { phase },
  } as GenerationJob;
}

/** A cache standing in for the informer: holds jobs and tells the hub of changes. */
function fakeCache() {
  const jobs = new Map<string, GenerationJob>();
  const listeners: Listener<GenerationJob>[] = [];
  return {
    on: (l: Listener<GenerationJob>) => listeners.push(l),
    get: (n: string) => jobs.get(n),
    set(job: GenerationJob) {
      jobs.set(job.metadata.name ?? '', job);
      for (const l of listeners) l('update', job);
    },
  };
}

function aStream(jobId: string, lastId?: string, account = 'a', authorized?: () => boolean) {
  const chunks: string[] = [];
  const s: Stream & { chunks: string[]; ended: boolean } = {
    account,
    authorized,
    jobId,
    model: MODEL,
    lastId,
    chunks,
    ended: false,
    write: (c) => chunks.push(c),
    end: () => {
      s.ended = true;
    },
  };
  return s;
}

function setup(maxPerAccount = 0) {
  const cache = fakeCache();
  const timers: Array<{ fn: () => void; cleared: boolean }> = [];
  const hub = new StreamHub({
    maxPerAccount,
    jobs: cache,
    changes: { on: (l) => cache.on((type, job) => l(type, job, true)) },
    record: (j) => ({ ...jobRecord(j), ...(j.status?.phase === 'pending' ? { queuePosition: 0 } : {}) }),
    setInterval: (fn) => {
      const t = { fn, cleared: false };
      timers.push(t);
      return t;
    },
    clearInterval: (t) => {
      (t as { cleared: boolean }).cleared = true;
    },
  });
  return { cache, hub, timers };
}

describe('StreamHub', () => {
  it('caps the streams an account holds open, before writing anything; closing one frees a place', () => {
    const { cache, hub } = setup(2);
    cache.set(aJob('j1', 'pending', '1'));
    const open = [aStream('j1'), aStream('j1')];
    for (const s of open) expect(hub.open(s, aJob('j1', 'pending', '1'))).toBe(true);
    const third = aStream('j1');
    expect(() => hub.open(third, aJob('j1', 'pending', '1'))).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED' }),
    );
    expect(third.chunks).toEqual([]);
    // Another account has places of its own.
    expect(hub.open(aStream('j1', undefined, 'b'), aJob('j1', 'pending', '1'))).toBe(true);
    hub.close(open[0]!);
    hub.close(open[0]!); // twice is still one close
    expect(hub.open(aStream('j1'), aJob('j1', 'pending', '1'))).toBe(true);
    expect(() => hub.open(aStream('j1'), aJob('j1', 'pending', '1'))).toThrow();
    // A stream ended at once (its job finished) holds no place.
    const { hub: other } = setup(1);
    expect(other.open(aStream('j2'), aJob('j2', 'completed', '5'))).toBe(false);
    expect(other.open(aStream('j2'), aJob('j2', 'completed', '5'))).toBe(false);
  });

  it('sends the record on every change and ends after the terminal one', () => {
    const { cache, hub } = setup();
    cache.set(aJob('j1', 'pending', '1'));
    const s = aStream('j1');
    expect(hub.open(s, aJob('j1', 'pending', '1'))).toBe(true);
    cache.set(aJob('j1', 'processing', '2'));
    cache.set(aJob('j1', 'completed', '3'));
    expect(s.chunks.map((c) => /^id: (.*)$/m.exec(c)?.[1])).toEqual(['1.0', '2', 'completed']);
    expect(s.chunks[2]).toContain('"status":"completed"');
    expect(s.ended).toBe(true);
    expect(hub.size).toBe(0);
  });

  it('a finished job: one event, then the end', () => {
    const { hub } = setup();
    const s = aStream('j1');
    expect(hub.open(s, aJob('j1', 'failed', '5'))).toBe(false);
    expect(s.chunks).toHaveLength(1);
    expect(s.ended).toBe(true);
  });

  it('a resumed stream gets nothing it already has', () => {
    const { cache, hub } = setup();
    cache.set(aJob('j1', 'processing', '7'));
    const s = aStream('j1', '7');
    hub.open(s, aJob('j1', 'processing', '7'));
    expect(s.chunks).toEqual([]);
    const done = aStream('j2', 'completed');
    expect(hub.open(done, aJob('j2', 'completed', '9'))).toBe(false);
    expect(done.chunks).toEqual([]);
    // Written again after it finished (its webhook delivery): still nothing new to send.
    const later = aStream('j2', 'completed');
    expect(hub.open(later, aJob('j2', 'completed', '12'))).toBe(false);
    expect(later.chunks).toEqual([]);
  });

  it('one heartbeat timer for every stream, stopped when the last one closes', () => {
    const { cache, hub, timers } = setup();
    const streams = ['a', 'b', 'c'].map((n) => {
      cache.set(aJob(n, 'processing', '1'));
      const s = aStream(n);
      hub.open(s, aJob(n, 'processing', '1'));
      return s;
    });
    expect(timers).toHaveLength(1);
    timers[0]!.fn();
    for (const s of streams) expect(s.chunks.at(-1)).toBe(': heartbeat\n\n');
    for (const s of streams) hub.close(s);
    expect(timers[0]!.cleared).toBe(true);
  });

  it("a stream ends at its next heartbeat or change once its caller's key no longer authenticates", () => {
    const { cache, hub, timers } = setup();
    let valid = true;
    const streams = ['a', 'b'].map((n) => {
      cache.set(aJob(n, 'pending', '1'));
      return aStream(n, undefined, 'a', () => valid || n === 'b');
    });
    for (const s of streams) hub.open(s, aJob(s.jobId, 'pending', '1'));
    valid = false;
    // Not asked at open: a stream opened by a key the cache does not show yet stays open.
    const opened = aStream('a', undefined, 'a', () => false);
    expect(hub.open(opened, aJob('a', 'pending', '1'))).toBe(true);
    timers[0]!.fn();
    const [revoked, kept] = streams as [(typeof streams)[0], (typeof streams)[0]];
    expect(revoked.ended).toBe(true);
    expect(revoked.chunks.at(-1)).not.toBe(': heartbeat\n\n');
    expect(kept.ended).toBe(false);
    expect(kept.chunks.at(-1)).toBe(': heartbeat\n\n');
    expect(opened.ended).toBe(true);
    expect(hub.size).toBe(1);
    const sent = kept.chunks.length;
    const late = aStream('b', undefined, 'a', () => false);
    hub.open(late, aJob('b', 'pending', '1'));
    cache.set(aJob('b', 'processing', '2'));
    expect(kept.chunks.length).toBe(sent + 1);
    expect(late.ended).toBe(true);
    expect(late.chunks.join('')).not.toContain('processing');
  });

  it("a recheck of an account (one of its keys or itself changed) ends at once its streams whose key is refused, and no other account's", () => {
    const { cache, hub, timers } = setup();
    let valid = true;
    cache.set(aJob('a', 'pending', '1'));
    const revoked = aStream('a', undefined, 'a', () => valid);
    const other = aStream('a', undefined, 'b', () => valid);
    hub.open(revoked, aJob('a', 'pending', '1'));
    hub.open(other, aJob('a', 'pending', '1'));
    valid = false;
    hub.recheck('a');
    expect([revoked.ended, other.ended]).toEqual([true, false]);
    expect(hub.size).toBe(1);
    expect(timers).toHaveLength(1);
    hub.recheck('nobody'); // an account with no stream costs nothing
  });

  it('a change to another job of the variant reaches a waiting stream only when its record moved', () => {
    const { cache, hub } = setup();
    cache.set(aJob('j1', 'pending', '1'));
    const s = aStream('j1');
    hub.open(s, aJob('j1', 'pending', '1'));
    cache.set(aJob('other', 'processing', '2'));
    expect(s.chunks).toHaveLength(1);
  });
});
