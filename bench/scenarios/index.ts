import type { BenchContext } from '../harness/context.ts';
import { apiScenarios } from './api.ts';
import { archiveScenario } from './archive.ts';
import { catalogScenario } from './catalog.ts';
import { e2eScenario } from './e2e.ts';
import { etaScenario } from './eta.ts';
import { memoryScenario } from './memory.ts';
import { peerScenario } from './peer.ts';
import { streamsScenario } from './streams.ts';
import { workerScenario } from './worker.ts';

export interface Scenario {
  id: string;
  title: string;
  run(ctx: BenchContext): Promise<unknown>;
}

/**
 * In order: the end-to-end run divides by the raw write rate of `api`, the peer run
 * compares with `e2e`, and the two throughput runs come before the memory run fills etcd.
 */
export const SCENARIOS: Scenario[] = [
  { id: 'api', title: 'raw creates, submits and reads side by side (1, 2, 3)', run: apiScenarios },
  { id: 'e2e', title: 'jobs through api, controller, node agent and worker (4)', run: e2eScenario },
  { id: 'peer', title: 'the same items as batch/v1 Jobs under the Job controller (7)', run: peerScenario },
  { id: 'catalog', title: 'GET /v1/catalog/models with 1,000 models (6)', run: catalogScenario },
  { id: 'memory', title: 'controller and api memory per cached job (5)', run: memoryScenario },
  { id: 'worker', title: 'builtin runtime wall times (8)', run: workerScenario },
  {
    id: 'archive',
    title: 'job history in PostgreSQL: memory, etcd, archived reads (14)',
    run: archiveScenario,
  },
  { id: 'streams', title: 'api memory with 1,000 open job event streams (9)', run: streamsScenario },
  { id: 'eta', title: 'completion estimate error on a mixed workload (10)', run: etaScenario },
];
