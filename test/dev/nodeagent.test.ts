import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NodeAgent, type NodeAgentOptions } from '../../src/dev/nodeagent.ts';
import type { Kube } from '../../src/k8s/client.ts';
import {
  createPod,
  deletePod,
  getPod,
  type Node,
  type Pod,
  patchPodStatus,
  podInformer,
} from '../../src/k8s/pods.ts';
import { eventually, testNamespace } from '../support/cluster.ts';

const TERMINATION_ENV = { name: 'GENJOBS_TERMINATION_LOG', value: '/dev/termination-log' };

let dir: string;
const logLines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
const agents: NodeAgent[] = [];
const nodes: Array<[Kube, string]> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genjobs-nodeagent-test-'));
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.stop()));
  await Promise.all(nodes.splice(0).map(([kube, name]) => kube.core.deleteNode({ name }).catch(() => {})));
});

afterAll(async () => {
  if (process.env.SHOW_LOGS) console.log(logLines.join(''));
  await rm(dir, { recursive: true, force: true });
});

/** A fresh namespace and a running agent with its own node and work dir. */
async function setUp(
  options: Partial<NodeAgentOptions> = {},
): Promise<{ kube: Kube; agent: NodeAgent; workDir: string }> {
  const kube = await testNamespace('nodeagent');
  const workDir = await mkdtemp(join(dir, 'work-'));
  const nodeName = options.nodeName ?? `nodeagent-${randomBytes(3).toString('hex')}`;
  nodes.push([kube, nodeName]);
  const agent = new NodeAgent(kube, {
    log,
    nodeName,
    slots: 2,
    workDir,
    logDir: join(dir, 'logs'),
    ...options,
  });
  agents.push(agent);
  await agent.start();
  return { kube, agent, workDir };
}

type ContainerSpec = NonNullable<Pod['spec']>['containers'][number];

function aPod(
  name: string,
  script: string,
  container: Partial<ContainerSpec> = {},
  spec: Partial<NonNullable<Pod['spec']>> = {},
): Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 2,
      ...spec,
      containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], ...container }],
    },
  };
}

async function waitForPod(
  kube: Kube,
  name: string,
  check: (pod: Pod) => boolean,
  timeoutMs = 10_000,
): Promise<Pod> {
  return eventually(
    async () => {
      const pod = await getPod(kube, name);
      return pod && check(pod) ? pod : undefined;
    },
    timeoutMs,
    `pod ${name}`,
  );
}

const finished = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
const terminated = (pod: Pod) => pod.status?.containerStatuses?.[0]?.state?.terminated;

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('NodeAgent', () => {
  it('runs a Pod to Succeeded through ContainerCreating and Running, with its termination message', async () => {
    const { kube, agent } = await setUp({ heartbeatIntervalMs: 200 });
    const node = await kube.core.readNode({ name: agent.nodeName });
    expect(node.status?.allocatable?.pods).toBe('2');
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const registeredBeat = ready(node)?.lastHeartbeatTime?.getTime() ?? 0;
    const seen: string[] = [];
    const watch = podInformer(kube, { log });
    watch.on((_type, pod) => {
      const state = pod.status?.containerStatuses?.[0]?.state;
      const step =
        state?.waiting?.reason ?? (state?.running ? 'Running' : state?.terminated ? 'Terminated' : undefined);
      if (step && seen.at(-1) !== `${pod.status?.phase}/${step}`) seen.push(`${pod.status?.phase}/${step}`);
    });
    await watch.start();
    await watch.waitForSync();
    const script = 'sleep 0.3; echo "{\\"ok\\":true}" > "$GENJOBS_TERMINATION_LOG"';
    await createPod(kube, aPod('ok', script, { env: [TERMINATION_ENV] }));

    const pod = await waitForPod(kube, 'ok', finished);
    // The GET can see the end before the watch delivers it.
    await eventually(() => seen.includes('Succeeded/Terminated'), 5_000, 'the watch to see the end');
    await watch.stop();
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.spec?.nodeName).toBe(agent.nodeName);
    expect(terminated(pod)).toMatchObject({ exitCode: 0, reason: 'Completed', message: '{"ok":true}\n' });
    expect(terminated(pod)?.startedAt).toBeDefined();
    expect(terminated(pod)?.finishedAt).toBeDefined();
    expect(pod.status?.startTime).toBeDefined();
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    expect(seen).toEqual(['Pending/ContainerCreating', 'Running/Running', 'Succeeded/Terminated']);
    // Heartbeat times have whole seconds: a later one shows within about a second.
    await eventually(
      async () => {
        const beat = ready(await kube.core.readNode({ name: agent.nodeName }))?.lastHeartbeatTime;
        return (beat?.getTime() ?? 0) > registeredBeat;
      },
      3_000,
      'a fresh heartbeat',
    );
    const output = await readdir(agent.logDir);
    expect(output.some((f) => f.includes('_ok_'))).toBe(true);
  });

  it('runs a container command through the command map, arguments after the mapped executable', async () => {
    const script = 'printf "%s %s" "$1" "$2" > "$GENJOBS_TERMINATION_LOG"';
    const { kube } = await setUp({ commandMap: { greet: ['sh', '-c', script, 'sh'] } });
    await createPod(
      kube,
      aPod('mapped', '', { command: ['greet', 'hello'], args: ['world'], env: [TERMINATION_ENV] }),
    );

    const pod = await waitForPod(kube, 'mapped', finished);
    expect(terminated(pod)?.message).toBe('hello world');
  });

  it('reports a failing command as Failed with its exit code and the tail of its output', async () => {
    const { kube } = await setUp();
    const script = 'echo starting; echo "boom: bad input" >&2; exit 3';
    await createPod(kube, aPod('fails', script, { terminationMessagePolicy: 'FallbackToLogsOnError' }));

    const pod = await waitForPod(kube, 'fails', finished);
    expect(pod.status?.phase).toBe('Failed');
    expect(terminated(pod)).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(terminated(pod)?.message).toBe('starting\nboom: bad input');
  });

  it('gives the process env from a Secret and a ConfigMap, and logs no secret value', async () => {
    const { kube } = await setUp();
    const secretValue = `s3cret-${randomBytes(6).toString('hex')}`;
    await kube.core.createNamespacedSecret({
      namespace: kube.namespace,
      body: { metadata: { name: 'creds' }, stringData: { token: secretValue } },
    });
    await kube.core.createNamespacedConfigMap({
      namespace: kube.namespace,
      body: { metadata: { name: 'settings' }, data: { mode: 'fast' } },
    });
    const env = [
      TERMINATION_ENV,
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
      { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
      { name: 'BOTH', value: '$(MODE):$(TOKEN)' },
    ];
    await createPod(kube, aPod('env', 'printf "%s" "$BOTH" > "$GENJOBS_TERMINATION_LOG"', { env }));

    const pod = await waitForPod(kube, 'env', finished);
    expect(pod.status?.phase).toBe('Succeeded');
    expect(terminated(pod)?.message).toBe(`fast:${secretValue}`);
    expect(logLines.join('')).not.toContain(secretValue);
  });

  it('passes a worker the CAs dev mode trusts (NODE_EXTRA_CA_CERTS), and nothing of its own secrets', async () => {
    const before = { ca: process.env.NODE_EXTRA_CA_CERTS, secret: process.env.GENJOBS_BLOB_SECRET };
    process.env.NODE_EXTRA_CA_CERTS = join(dir, 'receiver-ca.pem');
    process.env.GENJOBS_BLOB_SECRET = 'not-for-workers';
    try {
      const { kube } = await setUp();
      await createPod(
        kube,
        aPod(
          'ca',
          'printf "%s|%s" "$NODE_EXTRA_CA_CERTS" "$GENJOBS_BLOB_SECRET" > "$GENJOBS_TERMINATION_LOG"',
          {
            env: [TERMINATION_ENV],
          },
        ),
      );
      const pod = await waitForPod(kube, 'ca', finished);
      expect(terminated(pod)?.message).toBe(`${join(dir, 'receiver-ca.pem')}|`);
    } finally {
      for (const [name, value] of [
        ['NODE_EXTRA_CA_CERTS', before.ca],
        ['GENJOBS_BLOB_SECRET', before.secret],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('waits with CreateContainerConfigError while a referenced Secret is missing', async () => {
    const { kube } = await setUp({ configRetryMs: 200 });
    const env = [
      TERMINATION_ENV,
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'later', key: 'token' } } },
    ];
    await createPod(kube, aPod('later', 'printf "%s" "$TOKEN" > "$GENJOBS_TERMINATION_LOG"', { env }));

    const waiting = await waitForPod(
      kube,
      'later',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(waiting.status?.phase).toBe('Pending');
    expect(waiting.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain('"later" not found');
    await kube.core.createNamespacedSecret({
      namespace: kube.namespace,
      body: { metadata: { name: 'later' }, stringData: { token: 'here' } },
    });
    const pod = await waitForPod(kube, 'later', finished);
    expect(terminated(pod)?.message).toBe('here');
  });

  it('maps an emptyDir mount path in env and args to a writable local directory', async () => {
    const { kube, workDir } = await setUp();
    const script =
      'echo hi > "$1" && test -d "$SCRATCH" && printf "%s|%s" "$SCRATCH" "$(cat "$1")" > "$GENJOBS_TERMINATION_LOG"';
    await createPod(
      kube,
      aPod(
        'scratch',
        script,
        {
          args: ['sh', '/scratch/out.txt'],
          env: [TERMINATION_ENV, { name: 'SCRATCH', value: '/scratch' }],
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
        { volumes: [{ name: 'scratch', emptyDir: {} }] },
      ),
    );

    const pod = await waitForPod(kube, 'scratch', finished);
    expect(pod.status?.phase).toBe('Succeeded');
    const [local, content] = (terminated(pod)?.message ?? '').split('|');
    expect(local?.startsWith(workDir)).toBe(true);
    expect(content).toBe('hi');
    // The Pod's local files go when it finishes.
    await eventually(async () => (await readdir(workDir)).length === 0, 5_000, 'work dir cleaned');
  });

  it('writes configMap and downwardAPI volumes as files, a subPath mount as one file', async () => {
    const { kube } = await setUp();
    await kube.core.createNamespacedConfigMap({
      namespace: kube.namespace,
      body: { metadata: { name: 'job' }, data: { 'job.json': '{"a":1}' } },
    });
    const env = [
      TERMINATION_ENV,
      { name: 'JOB_FILE', value: '/etc/job/job.json' },
      { name: 'SINGLE', value: '/etc/single.json' },
      { name: 'META', value: '/etc/meta/labels' },
    ];
    const script =
      'printf "%s|%s|%s" "$(cat "$JOB_FILE")" "$(cat "$SINGLE")" "$(cat "$META")" > "$GENJOBS_TERMINATION_LOG"';
    const volumeMounts = [
      { name: 'job', mountPath: '/etc/job', readOnly: true },
      { name: 'job', mountPath: '/etc/single.json', subPath: 'job.json' },
      { name: 'meta', mountPath: '/etc/meta' },
    ];
    const volumes = [
      { name: 'job', configMap: { name: 'job' } },
      {
        name: 'meta',
        downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
      },
    ];
    const pod = aPod('files', script, { env, volumeMounts }, { volumes });
    pod.metadata!.labels = { app: 'genjobs' };
    await createPod(kube, pod);

    const done = await waitForPod(kube, 'files', finished);
    expect(terminated(done)?.message).toBe('{"a":1}|{"a":1}|app="genjobs"');
  });

  it('binds no more Pods than it has slots; the rest wait Unschedulable until one finishes', async () => {
    const { kube, agent } = await setUp({ slots: 2 });
    const gate = join(dir, `gate-${randomBytes(3).toString('hex')}`);
    const script = `while [ ! -e "${gate}" ]; do sleep 0.05; done`;
    for (const name of ['cap-1', 'cap-2', 'cap-3']) await createPod(kube, aPod(name, script));

    await waitForPod(kube, 'cap-1', (p) => p.status?.phase === 'Running');
    await waitForPod(kube, 'cap-2', (p) => p.status?.phase === 'Running');
    const third = await waitForPod(kube, 'cap-3', (p) =>
      Boolean(p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False')),
    );
    expect(third.spec?.nodeName).toBeUndefined();
    expect(third.status?.phase).toBe('Pending');
    expect(third.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
      reason: 'Unschedulable',
      message: '0/1 nodes are available: too many pods',
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await getPod(kube, 'cap-3'))?.spec?.nodeName).toBeUndefined();

    await writeFile(gate, '');
    const pod = await waitForPod(kube, 'cap-3', finished);
    expect(pod.spec?.nodeName).toBe(agent.nodeName);
    expect(pod.status?.phase).toBe('Succeeded');
  });

  it('fails a Pod past its activeDeadlineSeconds with DeadlineExceeded', async () => {
    const { kube } = await setUp();
    const started = Date.now();
    await createPod(kube, aPod('slow', 'sleep 30', {}, { activeDeadlineSeconds: 1 }));

    const pod = await waitForPod(kube, 'slow', finished, 8_000);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(pod.status).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(terminated(pod)?.exitCode).toBe(143);
  });

  it('kills the process of a Pod deleted while running and removes the Pod', async () => {
    const { kube, workDir } = await setUp();
    const pidFile = join(dir, `pid-${randomBytes(3).toString('hex')}`);
    const marker = join(dir, `marker-${randomBytes(3).toString('hex')}`);
    // `$$$$`: Kubernetes expands `$$` in a command to `$`, so the shell sees `$$`, its pid.
    await createPod(kube, aPod('doomed', `echo $$$$ > "${pidFile}"; sleep 2; touch "${marker}"`));
    await waitForPod(kube, 'doomed', (p) => p.status?.phase === 'Running');
    const pid = Number(
      await eventually(() => existsSync(pidFile) && readFile(pidFile, 'utf8'), 5_000, 'pid'),
    );
    expect(alive(pid)).toBe(true);

    await deletePod(kube, 'doomed');
    await eventually(async () => (await getPod(kube, 'doomed')) === undefined, 5_000, 'pod removed');
    expect(alive(pid)).toBe(false);
    await new Promise((r) => setTimeout(r, 2_200));
    expect(existsSync(marker)).toBe(false);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    const { kube } = await setUp();
    const marker = join(dir, `marker-${randomBytes(3).toString('hex')}`);
    const script = `trap "" TERM; sleep 2; touch "${marker}"`;
    await createPod(kube, aPod('stubborn', script, {}, { terminationGracePeriodSeconds: 1 }));
    await waitForPod(kube, 'stubborn', (p) => p.status?.phase === 'Running');

    const deleted = Date.now();
    await deletePod(kube, 'stubborn');
    await eventually(async () => (await getPod(kube, 'stubborn')) === undefined, 5_000, 'pod removed');
    expect(Date.now() - deleted).toBeGreaterThanOrEqual(900);
    await new Promise((r) => setTimeout(r, 1_300));
    expect(existsSync(marker)).toBe(false);
  });

  it('marks Pods bound before an agent restart Failed with NodeLost, and runs new ones', async () => {
    const nodeName = `nodeagent-${randomBytes(3).toString('hex')}`;
    const { kube, agent } = await setUp({ nodeName });
    await createPod(kube, aPod('orphan', 'sleep 30'));
    await waitForPod(kube, 'orphan', (p) => p.status?.phase === 'Running');
    await agent.stop();

    const workDir = join(dir, 'work-successor');
    const successor = new NodeAgent(kube, { log, nodeName, slots: 2, logDir: join(dir, 'logs'), workDir });
    agents.push(successor);
    await successor.start();
    const pod = await waitForPod(kube, 'orphan', finished);
    expect(pod.status).toMatchObject({ phase: 'Failed', reason: 'NodeLost' });
    expect(pod.status?.message).toContain('dev node agent restarted');
    expect(terminated(pod)?.reason).toBe('ContainerStatusUnknown');

    await createPod(kube, aPod('fresh', 'true'));
    expect((await waitForPod(kube, 'fresh', finished)).status?.phase).toBe('Succeeded');
  });
});

describe('pods', () => {
  it('refuses a status write that names another uid, so a successor Pod is never touched', async () => {
    const kube = await testNamespace('pods');
    await createPod(kube, aPod('target', 'true'));
    const pod = (await getPod(kube, 'target'))!;
    await expect(
      patchPodStatus(kube, 'target', { phase: 'Failed' }, { uid: 'someone-else' }),
    ).rejects.toThrow();
    const written = await patchPodStatus(kube, 'target', { phase: 'Failed' }, { uid: pod.metadata?.uid });
    expect(written.status?.phase).toBe('Failed');
    expect(await deletePod(kube, 'target', { uid: 'someone-else' })).toBe(false);
    expect(await deletePod(kube, 'target', { uid: pod.metadata?.uid, gracePeriodSeconds: 0 })).toBe(true);
    expect(await getPod(kube, 'target')).toBeUndefined();
  });
});
