/**
 * BENCH_PROFILE=apiserver: a Go CPU profile of kube-apiserver over a measured window (its
 * /debug/pprof, on by default and open to the admin identity), written beside the run's
 * logs, so where the apiserver's time per item goes can be compared between genjobs and the
 * Job controller: `go tool pprof -top <file>`.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Kube } from '../../src/k8s/client.ts';

export function wantsApiserverProfile(): boolean {
  return (process.env.BENCH_PROFILE ?? '').split(',').includes('apiserver');
}

/** Starts a profile of `seconds`; the promise resolves with the file once it is written. */
export function profileApiserver(kube: Kube, dir: string, name: string, seconds: number): Promise<string> {
  const file = join(dir, `apiserver-${name}.pb.gz`);
  const signal = AbortSignal.timeout((seconds + 60) * 1000);
  return kube.http.stream('/debug/pprof/profile', { seconds }, signal).then(async (res) => {
    if (res.statusCode !== 200) throw new Error(`apiserver profile answered ${res.statusCode}`);
    await pipeline(res.body, createWriteStream(file));
    return file;
  });
}
