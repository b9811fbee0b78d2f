import { defineConfig } from 'vitest/config';

// Two tiers share one run: pure unit tests co-located with the code (src/**/*.test.ts), and
// tests against the real local control plane (test/**/*.test.ts), which start it once per
// run in the global setup and give each file its own namespace.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
