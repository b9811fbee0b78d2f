import { describe, expect, it } from 'vitest';
import type { GenerationJob } from '../../k8s/types.ts';
import { forHistory } from './archiver.ts';

const job = (webhookUrl?: string) =>
  ({
    metadata: { name: 'j1' },
    spec: {
      account: 'acme',
      model: 'a/b/text-to-image',
      input: { prompt: 'p' },
      costMicroCents: 1,
      webhookUrl,
    },
  }) as unknown as GenerationJob;

describe('forHistory', () => {
  it.each([
    ['https://hooks.example.com/genjobs?token=SECRET', 'https://hooks.example.com'],
    ['https://user:pass@hooks.example.com:8443/h/SECRET', 'https://hooks.example.com:8443'],
    ['not a url', ''],
  ])('keeps only the origin of the webhook address %s', (url, origin) => {
    const kept = forHistory(job(url));
    expect(kept.spec.webhookUrl).toBe(origin);
    expect(JSON.stringify(kept)).not.toMatch(/SECRET|pass/);
    expect(kept.spec.input).toEqual({ prompt: 'p' });
  });

  it('leaves a job without a webhook as it is', () => {
    const j = job();
    expect(forHistory(j)).toBe(j);
  });
});
