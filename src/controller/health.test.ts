import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics.ts';
import { healthServer } from './health.ts';

describe('healthServer', () => {
  it('a port in use is a clear refusal naming the setting, not an unhandled error event', async () => {
    const options = { host: '127.0.0.1', metrics: createMetrics(), notReady: () => undefined };
    const first = await healthServer({ ...options, port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      await expect(healthServer({ ...options, port })).rejects.toThrow(
        `the controller's health and metrics port 127.0.0.1:${port} is in use; set GENJOBS_CONTROLLER_PORT`,
      );
      expect(await (await fetch(`${first.url}/healthz`)).json()).toEqual({ status: 'ok' });
    } finally {
      await first.close();
    }
  });
});
