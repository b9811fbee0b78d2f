import { describe, expect, it } from 'vitest';
import { blobSettings, loadConfig, publicBasePath } from './config.ts';

describe('loadConfig', () => {
  it('gives working defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.GENJOBS_PLANS).toEqual({ free: 2, pro: 20, enterprise: 100 });
    expect(c.GENJOBS_JOB_TTL).toBe(7 * 86_400_000);
    expect(c.GENJOBS_WORKER_COMMAND).toEqual(['genjobs', 'worker']);
    expect(c.GENJOBS_LEADER_ELECTION).toBe(true);
  });

  it.each([
    ['GENJOBS_JOB_TTL', '90s', 90_000],
    ['GENJOBS_JOB_TTL', '15m', 900_000],
    ['GENJOBS_JOB_TTL', '2h', 7_200_000],
    ['GENJOBS_RESERVATION_GRACE', '250ms', 250],
  ])('parses %s=%s as %d ms', (key, value, ms) => {
    expect(loadConfig({ [key]: value })[key as 'GENJOBS_JOB_TTL']).toBe(ms);
  });

  it.each([
    ['256kb', 262_144],
    ['1mb', 1_048_576],
    ['1MB', 1_048_576],
    ['5000', 5000],
  ])('reads GENJOBS_BODY_LIMIT=%s as %d bytes, and refuses what is not a size', (value, bytes) => {
    expect(loadConfig({ GENJOBS_BODY_LIMIT: value }).GENJOBS_BODY_LIMIT).toBe(bytes);
    expect(loadConfig({}).GENJOBS_BODY_LIMIT).toBe(262_144);
    expect(() => loadConfig({ GENJOBS_BODY_LIMIT: 'lots' })).toThrow(/GENJOBS_BODY_LIMIT: a size like 256kb/);
  });

  it('keeps the job history at least as long as an Idempotency-Key replays its job (24 h)', () => {
    expect(() => loadConfig({ GENJOBS_RETENTION: '23h' })).toThrow(/GENJOBS_RETENTION: at least 24h/);
    expect(() => loadConfig({ GENJOBS_RETENTION: '300' })).toThrow(/GENJOBS_RETENTION: at least 24h/);
    expect(loadConfig({ GENJOBS_RETENTION: '24h' }).GENJOBS_RETENTION).toBe(86_400_000);
    expect(loadConfig({}).GENJOBS_RETENTION).toBe(30 * 86_400_000);
  });

  it('takes a public URL with a path prefix, and refuses one with a query, a fragment or another scheme', () => {
    const c = loadConfig({
      GENJOBS_PUBLIC_URL: 'https://gen.example.com/genjobs/',
      GENJOBS_BLOB_SECRET: 'x'.repeat(32),
    });
    expect(publicBasePath(c.GENJOBS_PUBLIC_URL)).toBe('/genjobs');
    expect(blobSettings(c).publicBaseUrl).toBe('https://gen.example.com/genjobs/files');
    expect(publicBasePath(loadConfig({}).GENJOBS_PUBLIC_URL)).toBe('');
    for (const bad of [
      'https://gen.example.com/#x',
      'https://gen.example.com/genjobs?x=1',
      'ftp://gen.example.com',
    ]) {
      expect(() => loadConfig({ GENJOBS_PUBLIC_URL: bad })).toThrow(
        /GENJOBS_PUBLIC_URL.*without a \?query or #fragment/,
      );
      expect(() => loadConfig({ GENJOBS_BLOB_PUBLIC_URL: bad })).toThrow(/GENJOBS_BLOB_PUBLIC_URL/);
    }
  });

  it('names every bad variable in one error', () => {
    expect(() => loadConfig({ PORT: 'eighty', GENJOBS_PLANS: 'free:2', GENJOBS_BLOB_TYPE: 'ftp' })).toThrow(
      /PORT[\s\S]*GENJOBS_PLANS[\s\S]*GENJOBS_BLOB_TYPE|PORT[\s\S]*GENJOBS_BLOB_TYPE[\s\S]*GENJOBS_PLANS/,
    );
  });
});

describe('JSON settings', () => {
  it('parses worker Pod defaults and names a bad value', () => {
    const c = loadConfig({
      GENJOBS_WORKER_RESOURCES: '{"requests":{"cpu":"500m"},"limits":{"memory":"1Gi"}}',
      GENJOBS_WORKER_TOLERATIONS: '[{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]',
    });
    expect(c.GENJOBS_WORKER_RESOURCES).toEqual({ requests: { cpu: '500m' }, limits: { memory: '1Gi' } });
    expect(c.GENJOBS_WORKER_NODE_SELECTOR).toEqual({});
    expect(c.GENJOBS_WORKER_TOLERATIONS).toHaveLength(1);
    expect(() => loadConfig({ GENJOBS_WORKER_NODE_SELECTOR: '{"pool":1}' })).toThrow(
      /GENJOBS_WORKER_NODE_SELECTOR/,
    );
    expect(() => loadConfig({ GENJOBS_WORKER_COMMAND: 'genjobs worker' })).toThrow(/not JSON/);
  });
});
