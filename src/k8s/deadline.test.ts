import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedConfiguration, isCollectionRead } from './deadline.ts';
import { ApiserverUnavailable, isUnavailable } from './errors.ts';
import { ApiserverHealth } from './health.ts';

describe('isCollectionRead', () => {
  it.each([
    ['GET', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs', true],
    ['GET', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs?limit=1', true],
    ['GET', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs/job-1', false],
    ['GET', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs/job-1/status', false],
    ['PUT', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs/job-1', false],
    ['POST', '/apis/genjobs.io/v1alpha1/namespaces/ns/generationjobs', false],
    ['GET', '/api/v1/namespaces/ns/pods', true],
    ['GET', '/api/v1/namespaces/ns/pods/p', false],
    ['GET', '/api/v1/namespaces', true],
    ['GET', '/api/v1/namespaces/ns', false],
    ['GET', '/api/v1/nodes', true],
    ['GET', '/version', false],
  ])('%s %s → %s', (method, path, expected) => {
    expect(isCollectionRead(method, `https://127.0.0.1:6443${path}`)).toBe(expected);
  });
});

describe('ApiserverHealth', () => {
  it('is unreachable while the latest outcome is a failure, and reachable after a success', () => {
    let t = 1;
    const h = new ApiserverHealth(() => t);
    expect(h.unreachable()).toBeUndefined();
    h.failed('GET /x had no answer within 5 ms');
    expect(h.unreachable()).toMatch(/no answer/);
    t = 2;
    h.succeeded();
    expect(h.unreachable()).toBeUndefined();
  });
});

// A server that accepts connections and never answers: an apiserver stopped with SIGSTOP.
let silent: Server;
let url: string;
// One that sends its headers and part of the body, then stalls: frozen mid-answer.
let stalling: Server;
let stallingUrl: string;
beforeAll(async () => {
  silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  stalling = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"kind":');
  });
  await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
  stallingUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of [silent, stalling]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function client(server: string, health: ApiserverHealth) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new CustomObjectsApi(boundedConfiguration(kc, { requestMs: 200, listMs: 600 }, health));
}

describe('BoundedHttpLibrary', () => {
  const base = { group: 'genjobs.io', version: 'v1alpha1', namespace: 'ns', plural: 'generationjobs' };

  it('gives up a call without an answer at its deadline, as ApiserverUnavailable, and marks the apiserver unreachable', async () => {
    const health = new ApiserverHealth();
    const started = Date.now();
    const err = await client(url, health)
      .getNamespacedCustomObject({ ...base, name: 'j' })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(ApiserverUnavailable);
    expect(isUnavailable(err)).toBe(true);
    expect((err as ApiserverUnavailable).message).toMatch(/no answer within 200 ms/);
    expect(health.unreachable()).toMatch(/apiserver unreachable/);
  });

  it('gives a collection read the longer list deadline', async () => {
    const started = Date.now();
    const err = await client(url, new ApiserverHealth())
      .listNamespacedCustomObject(base)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiserverUnavailable);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  it('gives up a body that stalls after the headers, as ApiserverUnavailable too', async () => {
    const err = await client(stallingUrl, new ApiserverHealth())
      .getNamespacedCustomObject({ ...base, name: 'j' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiserverUnavailable);
  });

  it('turns a refused connection into ApiserverUnavailable', async () => {
    const err = await client('http://127.0.0.1:1', new ApiserverHealth())
      .getNamespacedCustomObject({ ...base, name: 'j' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiserverUnavailable);
  });
});
