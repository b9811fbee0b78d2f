import { type V1Lease, type V1LeaseSpec, V1MicroTime } from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { isAlreadyExists, isConflict, isNotFound } from './errors.ts';

export interface LeaderElectionOptions {
  /** Name of the coordination.k8s.io Lease shared by the candidates. */
  leaseName: string;
  /** This candidate's identity (Pod name and a random suffix). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log: Logger;
  now?: () => number;
  onStartedLeading: () => void;
  /** Called when leadership is lost; the process should stop acting at once. */
  onStoppedLeading: () => void;
}

/**
 * Lease-based leader election with controller-runtime's defaults (lease 15 s, renew
 * deadline 10 s, retry 2 s). A candidate acquires the Lease when it is free or expired,
 * by a replace that carries the resourceVersion it read, so of two racing candidates
 * exactly one write succeeds; the leader renews every retry period and steps down when it
 * could not renew within the renew deadline, before anyone else may take over.
 */
export class LeaderElector {
  private readonly kube: Kube;
  private readonly opts: Required<Omit<LeaderElectionOptions, 'now'>> & { now: () => number };
  private leading = false;
  private lastRenew = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The attempt in flight, so a stop can wait for it before releasing the Lease. */
  private inflight: Promise<void> = Promise.resolve();

  constructor(kube: Kube, options: LeaderElectionOptions) {
    this.kube = kube;
    this.opts = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      now: Date.now,
      ...options,
    };
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Stops campaigning. A leader releases the Lease so a successor need not wait it out;
   * `release: false` leaves it to expire, as a crashed process would.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // A renew still in flight would race the release below and make it conflict.
    await this.inflight;
    if (!this.leading) return;
    this.setLeading(false);
    if (options.release === false) return;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity === this.opts.identity) {
        lease.spec = micro({ ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 });
        await this.kube.coordination.replaceNamespacedLease({
          name: this.opts.leaseName,
          namespace: this.kube.namespace,
          body: lease,
        });
      }
    } catch (err) {
      this.opts.log.warn({ err: String(err) }, 'could not release the leader lease');
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.inflight = this.tick();
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.tryAcquireOrRenew();
      // Stopped meanwhile: act no more. (A Lease first acquired by this very attempt is
      // left to expire; a renewed one is released by stop, which waited for this attempt.)
      if (this.stopped) return;
      if (held) {
        this.lastRenew = this.opts.now();
        if (!this.leading) this.setLeading(true);
      } else if (this.leading) {
        this.setLeading(false);
      }
    } catch (err) {
      this.opts.log.warn({ err: String(err) }, 'leader lease update failed');
    }
    if (this.leading && this.opts.now() - this.lastRenew > this.opts.renewDeadlineMs) this.setLeading(false);
    if (!this.stopped) this.schedule(this.opts.retryPeriodMs);
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.opts.log.info(
      { identity: this.opts.identity, lease: this.opts.leaseName },
      leading ? 'became leader' : 'stopped leading',
    );
    if (leading) this.opts.onStartedLeading();
    else this.opts.onStoppedLeading();
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.kube.coordination.readNamespacedLease({
        name: this.opts.leaseName,
        namespace: this.kube.namespace,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One attempt; true when this candidate holds the Lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date(this.opts.now());
    const durationSeconds = Math.ceil(this.opts.leaseDurationMs / 1000);
    const lease = await this.read();
    if (!lease) {
      try {
        await this.kube.coordination.createNamespacedLease({
          namespace: this.kube.namespace,
          body: {
            metadata: { name: this.opts.leaseName, namespace: this.kube.namespace },
            spec: micro({
              holderIdentity: this.opts.identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            }),
          },
        });
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    const spec = lease.spec ?? {};
    const mine = spec.holderIdentity === this.opts.identity;
    const renewed = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired =
      !spec.holderIdentity || renewed + (spec.leaseDurationSeconds ?? durationSeconds) * 1000 < now.getTime();
    if (!mine && !expired) return false;
    lease.spec = micro({
      ...spec,
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: now,
      acquireTime: mine ? spec.acquireTime : now,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
    });
    try {
      // The replace carries the resourceVersion read above: of two racing candidates only one wins.
      await this.kube.coordination.replaceNamespacedLease({
        name: this.opts.leaseName,
        namespace: this.kube.namespace,
        body: lease,
      });
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }
}

/** Lease times are MicroTime: the apiserver refuses them with millisecond precision. */
function micro(spec: V1LeaseSpec): V1LeaseSpec {
  return {
    ...spec,
    acquireTime: spec.acquireTime ? new V1MicroTime(spec.acquireTime) : undefined,
    renewTime: spec.renewTime ? new V1MicroTime(spec.renewTime) : undefined,
  };
}
