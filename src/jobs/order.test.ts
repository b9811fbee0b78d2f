import { describe, expect, it, vi } from 'vitest';
import type { GenerationJob } from '../k8s/types.ts';
import { SUBMITTED_AT_ANNOTATION } from './labels.ts';
import { AdmissionQueue, admissionOrder, FairQueue, type QueuedFor, queuedOf } from './order.ts';

const job = (name: string, created: string, submittedAt?: string): GenerationJob => ({
  apiVersion: 'genjobs.io/v1alpha1',
  kind: 'GenerationJob',
  metadata: {
    name,
    creationTimestamp: created,
    ...(submittedAt ? { annotations: { [SUBMITTED_AT_ANNOTATION]: submittedAt } } : {}),
  },
  spec: { account: 'a', model: 'p/m/text-to-image', version: 'v1.0', input: {}, costMicroCents: 1 },
});

describe('admission order', () => {
  it('is the order jobs were submitted in, to the millisecond, within one creation second', () => {
    const second = '2026-11-24T15:12:44Z';
    const jobs = [
      job('c-no-annotation', second), // made before the annotation: after those of its second that have it
      job('a-third', second, '2026-11-24T15:12:44.900Z'),
      job('z-first', second, '2026-11-24T15:12:44.100Z'),
      job('m-second', second, '2026-11-24T15:12:44.500Z'),
      job('b-next-second', '2026-11-24T15:12:45Z', '2026-11-24T15:12:45.001Z'),
      job('y-earlier-second', '2026-11-24T15:12:43Z'),
    ];
    const queue = new AdmissionQueue();
    for (const j of jobs) queue.put(queuedOf(j));
    expect(queue.all.map((q) => q.name)).toEqual([
      'y-earlier-second',
      'z-first',
      'm-second',
      'a-third',
      'c-no-annotation',
      'b-next-second',
    ]);
    expect([...jobs.map(queuedOf)].sort(admissionOrder).map((q) => q.name)).toEqual(
      queue.all.map((q) => q.name),
    );
  });

  it('breaks a tie of the same instant by name', () => {
    const at = '2026-11-24T15:12:44.100Z';
    const sorted = [job('b', '2026-11-24T15:12:44Z', at), job('a', '2026-11-24T15:12:44Z', at)]
      .map(queuedOf)
      .sort(admissionOrder);
    expect(sorted.map((q) => q.name)).toEqual(['a', 'b']);
  });
});

describe('fair queue: accounts take turns', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 24, 15, 0, 0, ms)).toISOString();
  const entry = (account: string, name: string, ms: number): QueuedFor => ({
    account,
    name,
    created: at(ms),
  });

  it("starts another tenant's first job next, not behind one tenant's backlog", () => {
    const q = new FairQueue<QueuedFor>();
    for (let i = 0; i < 4; i++) q.hold('heavy', `running${i}`);
    for (let i = 0; i < 20; i++) q.put(entry('heavy', `h${String(i).padStart(2, '0')}`, i));
    const light = entry('light', 'l0', 1_000);
    expect(q.position(light)).toBe(0);
    q.put(light);
    expect(
      q
        .order()
        .map((e) => e.name)
        .slice(0, 3),
    ).toEqual(['l0', 'h00', 'h01']);
    expect(q.position(entry('heavy', 'h00', 0))).toBe(1);
    // Its next job, with one of its own running against the heavy tenant's four: next again.
    const second = entry('light', 'l1', 1_001);
    q.put(second);
    q.remove(light);
    q.hold('light', 'l0');
    expect(q.position(second)).toBe(0);
    // Holding more slots than the other, it waits for the other's turns to catch up: h00 has
    // turn 4, h01 turn 5 and was submitted first, l1 turn 5.
    for (let i = 0; i < 4; i++) q.hold('light', `earlier${i}`);
    q.hold('light', 'l0'); // counted once
    expect(q.position(second)).toBe(2);
    expect(
      q
        .order()
        .map((e) => e.name)
        .slice(0, 4),
    ).toEqual(['h00', 'h01', 'l1', 'h02']);
    expect(q.overtakes(second)).toBe(true); // h02… have later turns
    expect(q.overtakes(entry('heavy', 'h19', 19))).toBe(false);
    // Its running jobs end: its turn comes first again.
    for (let i = 0; i < 4; i++) q.release('light', `earlier${i}`);
    expect(q.position(second)).toBe(0);
  });

  it('numbers every position as the merged order does, for any queues and holdings', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const q = new FairQueue<QueuedFor>();
      const holding = new Map<string, number>();
      const items: QueuedFor[] = [];
      const accounts = 1 + rand(24);
      for (let a = 0; a < accounts; a++) {
        const h = rand(12);
        holding.set(`a${a}`, h);
        for (let i = 0; i < h; i++) q.hold(`a${a}`, `r${i}`);
      }
      for (let n = rand(60); n > 0; n--) {
        const e = entry(`a${rand(accounts)}`, `j${n}`, rand(20));
        items.push(e);
        q.put(e);
      }
      // The reference: each job's turn is its account's holding plus its rank in its account.
      const turn = (e: QueuedFor) =>
        (holding.get(e.account) ?? 0) +
        items.filter((o) => o.account === e.account && admissionOrder(o, e) < 0).length;
      const expected = [...items]
        .sort((x, y) => turn(x) - turn(y) || admissionOrder(x, y))
        .map((e) => e.name);
      // Positions as they come (a search per account until they have walked as many
      // accounts as there are jobs, then in the order that makes), then in the order.
      expect(items.map((e) => q.position(e))).toEqual(items.map((e) => expected.indexOf(e.name)));
      expect(q.order().map((e) => e.name)).toEqual(expected);
      expect(items.map((e) => q.position(e))).toEqual(items.map((e) => expected.indexOf(e.name)));
      expect(q.length).toBe(items.length);
      // A job not queued yet stands where it would be put.
      const late = entry(`a${rand(accounts)}`, 'late', rand(25));
      const at = q.position(late);
      q.remove(items[0] ?? late);
      q.put(items[0] ?? late);
      expect(q.position(late)).toBe(at);
      q.put(late);
      expect(q.order().findIndex((e) => e.name === 'late')).toBe(at);
    }
  });

  it('makes the order once reads of an unchanged queue have walked as many accounts as it has jobs', () => {
    const q = new FairQueue<QueuedFor>();
    const items = Array.from({ length: 40 }, (_, i) => entry(`a${i % 20}`, `j${i}`, i));
    for (const e of items) q.put(e);
    const order = vi.spyOn(q, 'order');
    // 20 accounts a walk: the second position has walked 40, the third 60 > 40 jobs.
    const asked = items.slice(0, 2).map((e) => q.position(e));
    expect(order).not.toHaveBeenCalled();
    const positions = items.map((e) => q.position(e));
    expect(order).toHaveBeenCalledTimes(1);
    expect(positions.slice(0, 2)).toEqual(asked);
    expect(positions).toEqual(items.map((e) => q.order().indexOf(e)));
    // A change starts the count again: a submit's one answer walks, it does not order.
    order.mockClear();
    const late = entry('a3', 'late', 99);
    q.put(late);
    expect(q.position(late)).toBe(q.length - 1);
    expect(order).not.toHaveBeenCalled();
  });
});
