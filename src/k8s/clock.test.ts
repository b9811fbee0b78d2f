import { describe, expect, it } from 'vitest';
import { ClusterClock } from './clock.ts';

const date = (ms: number) => new Date(ms).toUTCString();

describe('ClusterClock', () => {
  it("keeps no offset while the apiserver agrees within its Date header's second", () => {
    let local = 1_000_000_500;
    const clock = new ClusterClock(() => local);
    const changes: number[] = [];
    clock.watch((ms) => changes.push(ms));
    // Sent and answered within 20 ms; the header says the whole second the answer was made in.
    clock.observe(date(1_000_000_000), local, local + 20);
    local += 5_000;
    clock.observe(date(1_000_005_000 + 900), local, local + 5);
    expect([clock.offsetMs(), changes]).toEqual([0, []]);
    expect(clock.now()).toBe(local);
  });

  it("takes the apiserver's time when this node's is three minutes behind, and says so once", () => {
    const real = 1_000_000_000_000;
    const clock = new ClusterClock(() => real - 180_000);
    const changes: number[] = [];
    clock.watch((ms) => changes.push(ms));
    clock.observe(date(real), real - 180_000, real - 180_000 + 30);
    expect(Math.abs(clock.now() - real)).toBeLessThanOrEqual(1_000);
    // Later answers within the second it allows move nothing.
    clock.observe(date(real + 400), real - 180_000 + 10, real - 180_000 + 40);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toBeGreaterThan(179_000);
  });

  it('goes back to no offset once the clocks agree again; ignores a missing or bad header', () => {
    let local = 2_000_000_000_000;
    const clock = new ClusterClock(() => local);
    clock.observe(date(local + 60_000), local, local + 10);
    expect(clock.offsetMs()).toBeGreaterThan(59_000);
    clock.observe(undefined, local, local);
    clock.observe('not a date', local, local);
    expect(clock.offsetMs()).toBeGreaterThan(59_000);
    local += 60_000; // NTP stepped this node's clock forward
    clock.observe(date(local), local, local + 10);
    expect(clock.offsetMs()).toBe(0);
  });
});
