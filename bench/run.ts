/**
 * `npm run bench [-- --quick] [-- --only api,e2e,...]`: how close genjobs runs to the
 * limit of its kube-apiserver, measured side by side on a control plane of its own (a temp
 * dir, so a dev instance is never disturbed). Prints a table, writes every figure to
 * bench/results/<timestamp>.json, exits non-zero when a scenario failed. `--quick` (CI)
 * runs every scenario small, in under two minutes, and asserts nothing about speed.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from './harness/cluster.ts';
import { makeContext } from './harness/context.ts';
import { machine } from './harness/machine.ts';
import { cleanupAll, installSignalHandlers } from './harness/procs.ts';
import { describe, round } from './harness/stats.ts';
import { printReport, type Report, targets } from './report.ts';
import { SCENARIOS } from './scenarios/index.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const keep = args.includes('--keep');
const onlyArg = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = onlyArg ? new Set(onlyArg.split(',')) : undefined;
const unknown = args.filter((a) => a !== '--quick' && a !== '--keep' && !a.startsWith('--only='));
if (unknown.length > 0 || (only && [...only].some((o) => !SCENARIOS.some((s) => s.id === o)))) {
  console.error(
    `usage: node bench/run.ts [--quick] [--keep] [--only=${SCENARIOS.map((s) => s.id).join(',')}]`,
  );
  process.exit(2);
}

installSignalHandlers();
const started = Date.now();
const progress = (m: string) =>
  console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);
const dir = await mkdtemp(join(tmpdir(), 'genjobs-benchrun-'));
const report: Report = {
  mode: quick ? 'quick' : 'full',
  startedAt: new Date(started).toISOString(),
  durationSeconds: 0,
  machine: await machine(),
  scenarios: {},
  errors: [],
  targets: [],
};

try {
  progress(`starting a control plane in ${dir}`);
  const cluster = await startCluster(dir);
  report.machine.kubernetes = cluster.versions.kubernetes;
  report.machine.controlPlaneAssets = cluster.versions.assets;
  const ctx = await makeContext(quick, cluster, dir, progress);
  for (const scenario of SCENARIOS) {
    if (only && !only.has(scenario.id)) continue;
    progress(`${scenario.id}: ${scenario.title}`);
    const t = Date.now();
    try {
      report.scenarios[scenario.id] = await scenario.run(ctx);
    } catch (err) {
      const message = describe(err);
      report.errors.push({
        scenario: scenario.id,
        message,
        stack: err instanceof Error ? err.stack : undefined,
      });
      progress(`${scenario.id} FAILED: ${message}`);
    }
    progress(`${scenario.id} took ${round((Date.now() - t) / 1000, 1)} s`);
  }
} catch (err) {
  report.errors.push({
    scenario: 'setup',
    message: describe(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  progress(`setup FAILED: ${describe(err)}`);
} finally {
  await cleanupAll();
}

report.durationSeconds = round((Date.now() - started) / 1000, 1);
report.targets = targets(report);
printReport(report);
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, `${report.startedAt.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nresults: ${file}`);
if (keep || report.errors.length > 0) console.log(`logs and control plane data kept in ${dir}`);
else await rm(dir, { recursive: true, force: true });
if (report.errors.length > 0) {
  console.error(`\n${report.errors.length} scenario(s) failed:`);
  for (const e of report.errors) console.error(`  ${e.scenario}: ${e.message}`);
  process.exit(1);
}
process.exit(0);
