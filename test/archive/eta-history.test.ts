import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { memoryLogger, startTestApi, type TestService } from '../support/service.ts';
import { at, finishedJob } from './fixtures.ts';

const IMAGE = 'genjobs/reference-image/text-to-image';
/** The default catalog's typical run of the image variant: what an api with no history estimates. */
const TYPICAL_SECONDS = 30;
/** The archived runs' length: far from the typical time, so the estimate shows which one it used. */
const RUN_SECONDS = 100;

let pg: LocalPostgres;
const started: TestService[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await pg?.stop();
});

beforeAll(async () => {
  pg = await LocalPostgres.start();
  const archive = new Archive(postgresClient({ connectionString: pg.url }));
  // Completed well before this api started: no cache holds them, only the archive.
  await archive.upsertJobs(
    Array.from({ length: 12 }, (_, i) =>
      finishedJob(`archived-run-${i}`, {
        model: IMAGE,
        createdAt: at(i * 200),
        completedAt: at(i * 200 + RUN_SECONDS),
      }),
    ),
  );
  await archive.close();
});

/** An api in a fresh namespace on this file's archive, and the lines it logs. */
async function apiOnArchive(prefix: string): Promise<{ svc: TestService; lines: string[] }> {
  const { log, lines } = memoryLogger();
  const svc = await startTestApi(prefix, { GENJOBS_ARCHIVE: 'postgres', GENJOBS_ARCHIVE_URL: pg.url }, log);
  started.push(svc);
  return { svc, lines };
}

/** Seconds from now to the estimated completion of a new image job submitted to this api. */
async function estimateOfNewJob(svc: TestService): Promise<number> {
  const key = await svc.account({ name: 'acme', plan: 'enterprise' });
  const res = await svc.call('/v1/jobs/submit', {
    method: 'POST',
    key,
    json: { model: IMAGE, input: { prompt: 'a lighthouse' } },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { estimatedCompletionTime: string };
  return (Date.parse(body.estimatedCompletionTime) - Date.now()) / 1000;
}

describe('completion estimates after a restart', () => {
  it("a new api estimates from the variant's archived runs, not the catalog's typical time", async () => {
    const { svc, lines } = await apiOnArchive('eta-archive');
    const seconds = await estimateOfNewJob(svc);
    // No other job waits or runs, so the estimate is one run: the archived runs' length.
    expect(seconds).toBeGreaterThan(RUN_SECONDS - 10);
    expect(seconds).toBeLessThan(RUN_SECONDS + 10);
    expect(lines.join('\n')).toMatch(/"runs":12,.*completion estimates learned from the archived runs/);
  });

  it("with the archive down the api starts all the same, on the catalog's typical time, and says why", async () => {
    await pg.pause();
    const { svc, lines } = await apiOnArchive('eta-archive-down');
    const seconds = await estimateOfNewJob(svc);
    expect(seconds).toBeGreaterThan(TYPICAL_SECONDS - 10);
    expect(seconds).toBeLessThan(TYPICAL_SECONDS + 10);
    expect(lines.join('\n')).toMatch(/the archive's runs could not be read/);
  });
});
