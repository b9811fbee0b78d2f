import { describe, expect, it } from 'vitest';
import { inClusterFetch } from './entrypoint.ts';

describe('inClusterFetch', () => {
  it("reads the service's own public file URLs from the in-cluster address, anything else as given", async () => {
    const seen: string[] = [];
    const f = inClusterFetch('https://cdn.example/files', 'http://genjobs-api:8080/files/', async (input) => {
      seen.push(String(input));
      return new Response('x');
    });
    await f('https://cdn.example/files/uploads/acme/1234');
    await f('https://cdn.example/filesystem/x');
    await f(new URL('https://elsewhere.example/a.png'));
    expect(seen).toEqual([
      'http://genjobs-api:8080/files/uploads/acme/1234',
      'https://cdn.example/filesystem/x',
      'https://elsewhere.example/a.png',
    ]);
  });
});
