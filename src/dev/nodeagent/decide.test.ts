import { describe, expect, it } from 'vitest';
import type { Pod } from '../../k8s/pods.ts';
import { type Action, decide, type PodRecord } from './decide.ts';
import { expand } from './env.ts';
import { planSchedule } from './schedule.ts';

const NODE = 'dev-node';
const NOW = 1_000_000;

function aPod(
  overrides: {
    uid?: string;
    node?: string;
    phase?: string;
    deleting?: boolean;
    grace?: number;
    deadline?: number;
  } = {},
): Pod {
  return {
    metadata: {
      name: 'p',
      uid: overrides.uid ?? 'u1',
      deletionTimestamp: overrides.deleting ? new Date(NOW) : undefined,
      deletionGracePeriodSeconds: overrides.deleting ? (overrides.grace ?? 5) : undefined,
    },
    spec: {
      nodeName: overrides.node ?? NODE,
      activeDeadlineSeconds: overrides.deadline,
      containers: [{ name: 'main' }],
    },
    status: { phase: overrides.phase ?? 'Pending' },
  };
}

function aRecord(overrides: Partial<PodRecord> = {}): PodRecord {
  return {
    uid: 'u1',
    startTime: new Date(NOW - 10_000),
    graceSeconds: 30,
    started: true,
    reportedRunning: true,
    killSent: false,
    finished: false,
    ...overrides,
  };
}

const exit = { exitCode: 0, finishedAt: new Date(NOW) };

describe('decide', () => {
  const cases: Array<[string, Pod | undefined, PodRecord | undefined, boolean, Action]> = [
    ['a Pod bound elsewhere is not ours', aPod({ node: 'other' }), undefined, false, { type: 'none' }],
    ['a new Pod bound here is started', aPod(), undefined, false, { type: 'start' }],
    [
      'a Pod from before a restart is lost',
      aPod({ phase: 'Running' }),
      undefined,
      true,
      { type: 'node-lost' },
    ],
    ['a finished Pod is left alone', aPod({ phase: 'Succeeded' }), undefined, true, { type: 'none' }],
    [
      'a deleting Pod with nothing running is finalized',
      aPod({ deleting: true }),
      undefined,
      false,
      { type: 'finalize' },
    ],
    [
      "a deletion without grace is the apiserver's to finish",
      aPod({ deleting: true, grace: 0 }),
      undefined,
      false,
      { type: 'none' },
    ],
    [
      'a finished Pod deleted without grace is not finalized: it is removed already',
      aPod({ phase: 'Succeeded', deleting: true, grace: 0 }),
      aRecord({ exit, finished: true }),
      false,
      { type: 'none' },
    ],
    [
      'a finished Pod deleted gracefully is finalized',
      aPod({ phase: 'Succeeded', deleting: true }),
      aRecord({ exit, finished: true }),
      false,
      { type: 'finalize' },
    ],
    [
      'a started container is reported running once',
      aPod(),
      aRecord({ reportedRunning: false }),
      false,
      { type: 'running', report: true },
    ],
    [
      'a running container is checked again at its deadline',
      aPod({ deadline: 15 }),
      aRecord(),
      false,
      { type: 'running', report: false, requeueAfterMs: 5_000 },
    ],
    [
      'a container past its deadline gets SIGTERM',
      aPod({ deadline: 10 }),
      aRecord(),
      false,
      { type: 'signal', signal: 'SIGTERM', reason: 'DeadlineExceeded', requeueAfterMs: 30_000 },
    ],
    [
      'SIGKILL follows once the grace period is over',
      aPod({ deadline: 10 }),
      aRecord({ stopReason: 'DeadlineExceeded', termSentAt: NOW - 30_000 }),
      false,
      { type: 'signal', signal: 'SIGKILL', reason: 'DeadlineExceeded', requeueAfterMs: 1_000 },
    ],
    [
      'a deleted Pod stops within its deletion grace period',
      aPod({ deleting: true }),
      aRecord(),
      false,
      { type: 'signal', signal: 'SIGTERM', reason: 'Deleted', requeueAfterMs: 5_000 },
    ],
    [
      'a Pod gone from the cache stops its container',
      undefined,
      aRecord({ termSentAt: NOW - 1_000, stopReason: 'Deleted' }),
      false,
      { type: 'wait', requeueAfterMs: 29_000 },
    ],
    [
      'an exited container is finished',
      aPod({ phase: 'Running' }),
      aRecord({ exit }),
      false,
      { type: 'finish' },
    ],
    [
      'an exited container of a gone Pod is released',
      undefined,
      aRecord({ exit }),
      false,
      { type: 'release' },
    ],
    [
      'a successor Pod of the same name releases the old record first',
      aPod({ uid: 'u2' }),
      aRecord({ exit }),
      false,
      { type: 'release' },
    ],
    [
      'a stale cache after the final write starts nothing',
      aPod({ phase: 'Running' }),
      aRecord({ exit, finished: true }),
      false,
      { type: 'none' },
    ],
    [
      'the record goes once the cache shows the end',
      aPod({ phase: 'Failed' }),
      aRecord({ exit, finished: true }),
      false,
      { type: 'forget' },
    ],
    [
      'a container that could not be created waits for its retry',
      aPod(),
      aRecord({ started: false, retryAt: NOW + 2_000 }),
      false,
      { type: 'wait', requeueAfterMs: 2_000 },
    ],
  ];
  it.each(cases)('%s', (_name, pod, record, orphan, expected) => {
    expect(decide({ pod, record, nodeName: NODE, orphan, now: NOW })).toEqual(expected);
  });
});

describe('planSchedule', () => {
  const pod = (name: string, created: number, node?: string, phase = 'Pending'): Pod => ({
    metadata: { name, uid: name, creationTimestamp: new Date(created * 1000) },
    spec: { nodeName: node, containers: [{ name: 'main' }] },
    status: { phase },
  });
  const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

  it('fills free slots oldest first and leaves the rest unschedulable', () => {
    const plan = planSchedule({
      pods: [
        pod('c', 3),
        pod('running', 1, NODE, 'Running'),
        pod('a', 2),
        pod('done', 0, NODE, 'Succeeded'),
        pod('b', 2),
      ],
      nodeName: NODE,
      slots: 2,
      assumed: new Map(),
      finished: () => false,
    });
    expect(names(plan.bind)).toEqual(['a']);
    expect(names(plan.unschedulable)).toEqual(['b', 'c']);
  });

  it('binds Pods made in one second in the order they arrived, not by name', () => {
    const order = ['gj-f', 'gj-a', 'gj-c'];
    const plan = planSchedule({
      pods: [pod('gj-a', 5), pod('gj-c', 5), pod('gj-f', 5), pod('gj-0', 6)],
      nodeName: NODE,
      slots: 2,
      assumed: new Map(),
      finished: () => false,
      arrival: (p) => order.indexOf(p.metadata?.name ?? ''),
    });
    expect(names(plan.bind)).toEqual(['gj-f', 'gj-a']);
    expect(names(plan.unschedulable)).toEqual(['gj-c', 'gj-0']);
  });

  it('counts Pods it bound that the cache does not show yet, and frees Pods it finished', () => {
    const pods = [pod('a', 1), pod('b', 2), pod('c', 3, NODE, 'Running')];
    const plan = planSchedule({
      pods,
      nodeName: NODE,
      slots: 2,
      assumed: new Map([['a', 'a']]),
      finished: (p) => p.metadata?.name === 'c',
    });
    expect(names(plan.bind)).toEqual(['b']);
  });
});

describe('expand', () => {
  it.each([
    ['$(A)/x', 'one/x'],
    ['$(MISSING)', '$(MISSING)'],
    ['$$(A)', '$(A)'],
    ['echo $$', 'echo $'],
    ['$HOME', '$HOME'],
    ['$(A', '$(A'],
  ])('%s → %s', (input, output) => {
    expect(expand(input, new Map([['A', 'one']]))).toBe(output);
  });
});
