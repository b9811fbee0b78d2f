import { loadConfig } from '../../src/config.ts';
import {
  type ControllerDependencies,
  type RunningController,
  startController,
} from '../../src/controller/main.ts';
import type { Clock } from '../../src/k8s/workqueue.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import type { TestService } from './service.ts';

/**
 * A clock that runs with real time and can be moved forward: `advance(ms)` shifts `now()`
 * and fires every timer that became due, as if that much time had passed. Pass one to
 * several controllers in turn to carry the time across a restart.
 */
export class TestClock implements Clock {
  private offset = 0;
  private readonly timers = new Set<{ at: number; fn: () => void; handle?: NodeJS.Timeout }>();

  now = (): number => Date.now() + this.offset;

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.now() + ms, fn };
    this.arm(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    const timer = handle as { handle?: NodeJS.Timeout };
    clearTimeout(timer.handle);
    this.timers.delete(handle as never);
  }

  advance(ms: number): void {
    this.offset += ms;
    for (const timer of [...this.timers]) {
      clearTimeout(timer.handle);
      this.arm(timer);
    }
  }

  private arm(timer: { at: number; fn: () => void; handle?: NodeJS.Timeout }): void {
    this.timers.add(timer);
    timer.handle = setTimeout(
      () => {
        this.timers.delete(timer);
        timer.fn();
      },
      Math.max(0, timer.at - this.now()),
    );
    timer.handle.unref();
  }
}

export interface TestControllerOptions
  extends Partial<Omit<ControllerDependencies, 'config' | 'kube' | 'log'>> {
  /** Settings on top of those the api of `svc` runs with. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The controller on the namespace of a {@link startTestApi} service, sharing its blob
 * directory and signing secret, without leader election and on a free port.
 */
export async function startTestController(
  svc: TestService,
  options: TestControllerOptions = {},
): Promise<RunningController> {
  const { env, ...deps } = options;
  const config = loadConfig({
    HOST: '127.0.0.1',
    GENJOBS_LEADER_ELECTION: 'false',
    GENJOBS_CONTROLLER_PORT: '0',
    GENJOBS_PUBLIC_URL: svc.config.GENJOBS_PUBLIC_URL,
    GENJOBS_BLOB_DIR: svc.config.GENJOBS_BLOB_DIR,
    GENJOBS_BLOB_SECRET: svc.config.GENJOBS_BLOB_SECRET,
    GENJOBS_WEBHOOK_ALLOW_PRIVATE: String(svc.config.GENJOBS_WEBHOOK_ALLOW_PRIVATE),
    ...env,
  });
  const log = process.env.GENJOBS_TEST_LOGS ? createLogger('test-controller', 'debug') : silentLogger();
  return startController({ config, kube: svc.kube, log, ...deps });
}
