/**
 * The floor under any api in front of the apiserver: an HTTP server that takes a submit's
 * body and makes its GenerationJob in one create, and does nothing else (no key, no
 * validation, no price, no ledger, no log line). Measured beside raw creates and the api's
 * submits, it is the throughput the machine allows a service that must receive each request
 * and make the write: on cores that the load generator, the api and the apiserver share,
 * its ratio to raw creates bounds every api's.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kube } from '../../src/k8s/client.ts';
import { resources } from '../../src/k8s/resources.ts';

export async function startForwarder(
  kube: Kube,
  host: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const jobs = resources(kube).jobs;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        model: string;
        input: Record<string, unknown>;
      };
      jobs
        .create({
          metadata: {
            name: randomUUID(),
            // A submit's labels, annotation and fields: the apiserver stores as much as for one.
            labels: {
              'genjobs.io/account': 'forwarder',
              'genjobs.io/model': 'forwarder',
              'genjobs.io/api-key': 'key-forwarder',
            },
            annotations: { 'genjobs.io/submitted-at': new Date().toISOString() },
          },
          spec: {
            account: 'forwarder',
            model: body.model,
            version: 'v1.0',
            input: body.input,
            costMicroCents: 134000,
            lease: 'l-forwarder',
            requestId: randomUUID(),
          },
        })
        .then(
          (job) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ jobId: job.metadata.name, status: 'pending' }));
          },
          (err: unknown) => {
            res.writeHead(503, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: String(err) }));
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
