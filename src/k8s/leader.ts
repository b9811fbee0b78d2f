import {
  type ConfigurationOptions,
  Observable,
  type RequestContext,
  type ResponseContext,
  type V1Lease,
  type V1LeaseSpec,
  V1MicroTime,
} from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import type { Kube } from './client.ts';
import { isAlreadyExists, isConflict, isNotFound } from './errors.ts';

export interface LeaderElectionOptions {
  /** Name of the coordination.k8s.io Lease shared by the candidates. */
  leaseName: string;
  /** This candidate's identity (Pod name and a random suffix). */
  identity: string;
  /** How long a Lease not seen to change is held by its holder (15 s). */
  leaseDurationMs?: number;
  /** A leader that has not renewed for this long stops acting (10 s); shorter than the lease. */
  renewDeadlineMs?: number;
  /** Pause between attempts to acquire or renew (2 s). */
  retryPeriodMs?: number;
  /** Longest wait for one Lease request (default: the retry period, at least 1 s). */
  requestTimeoutMs?: number;
  log: Logger;
  /** Wall clock, only for the times written into the Lease (which others never judge by). */
  now?: () => number;
  /** Monotonic clock in ms that every expiry and deadline is measured on (performance.now). */
  monotonic?: () => number;
  onStartedLeading: () => void;
  /** Called when leadership is lost; the process should stop acting at once. */
  onStoppedLeading: () => void;
}

/** What was last seen of the Lease, and when (on this process's monotonic clock). */
interface Observation {
  record: string;
  at: number;
}

/**
 * Lease-based leader election by client-go's rules, with controller-runtime's defaults
 * (lease 15 s, renew deadline 10 s, retry 2 s):
 * - a candidate judges expiry only by its own monotonic clock: the Lease is expired when
 *   its record (holder, renewTime) has not changed for a lease duration since this process
 *   saw it change, never by comparing the holder's renewTime with the local wall clock;
 * - every request has a timeout, so a hung connection cannot keep a leader believing;
 * - a leader stops acting once its renew deadline passes since the start of its last
 *   successful renew, which comes before any other candidate may see the Lease expire;
 * - the Lease is written with the resourceVersion that was read, so of two racing
 *   candidates exactly one wins.
 */
export class LeaderElector {
  private readonly kube: Kube;
  private readonly opts: Required<LeaderElectionOptions>;
  private leading = false;
  private observed: Observation | undefined;
  private timer: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The attempt in flight, so a stop can wait for it before releasing the Lease. */
  private inflight: Promise<void> = Promise.resolve();

  constructor(kube: Kube, options: LeaderElectionOptions) {
    this.kube = kube;
    const retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.opts = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      requestTimeoutMs: Math.max(1_000, retryPeriodMs),
      now: Date.now,
      monotonic: () => performance.now(),
      ...options,
      retryPeriodMs,
    };
    const o = this.opts;
    if (o.renewDeadlineMs >= o.leaseDurationMs)
      throw new Error('leader election: the renew deadline must be shorter than the lease duration');
    if (o.retryPeriodMs >= o.renewDeadlineMs)
      throw new Error('leader election: the retry period must be shorter than the renew deadline');
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
   * `release: false` leaves it to expire, as a crashed process would. Callers stop their
   * work first (drained), then call this: until then the leader keeps renewing.
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
        await this.kube.coordination.replaceNamespacedLease(
          { name: this.opts.leaseName, namespace: this.kube.namespace, body: lease },
          this.timeout(),
        );
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
    const started = this.opts.monotonic();
    try {
      const held = await this.tryAcquireOrRenew();
      // Stopped meanwhile: act no more. (A Lease first acquired by this very attempt is
      // left to expire; a renewed one is released by stop, which waited for this attempt.)
      if (this.stopped) return;
      if (held) this.renewed(started);
      else if (this.leading) this.setLeading(false);
    } catch (err) {
      this.opts.log.warn({ err: String(err) }, 'leader lease update failed');
    }
    if (!this.stopped) this.schedule(this.opts.retryPeriodMs);
  }

  /**
   * The Lease is ours as of `sentAt`, when the request that wrote it left: others see the
   * write later still, so a deadline counted from here ends before their lease does.
   */
  private renewed(sentAt: number): void {
    const left = sentAt + this.opts.renewDeadlineMs - this.opts.monotonic();
    if (this.deadline) clearTimeout(this.deadline);
    if (left <= 0) {
      if (this.leading) this.setLeading(false);
      return;
    }
    this.deadline = setTimeout(() => {
      this.opts.log.warn({ identity: this.opts.identity }, 'leader lease not renewed within the deadline');
      if (this.leading) this.setLeading(false);
    }, left);
    this.deadline.unref();
    if (!this.leading) this.setLeading(true);
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    if (!leading && this.deadline) clearTimeout(this.deadline);
    this.opts.log.info(
      { identity: this.opts.identity, lease: this.opts.leaseName },
      leading ? 'became leader' : 'stopped leading',
    );
    if (leading) this.opts.onStartedLeading();
    else this.opts.onStoppedLeading();
  }

  /** Request options that abort a Lease request after the request timeout. */
  private timeout(): ConfigurationOptions {
    const signal = AbortSignal.timeout(this.opts.requestTimeoutMs);
    return {
      middleware: [
        {
          pre: (context: RequestContext) => {
            context.setSignal(signal);
            return new Observable(Promise.resolve(context));
          },
          post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
        },
      ],
      middlewareMergeStrategy: 'append',
    };
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.kube.coordination.readNamespacedLease(
        { name: this.opts.leaseName, namespace: this.kube.namespace },
        this.timeout(),
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Notes the Lease as read or written; its observation time moves only when it changed.
   * Every write (a renew included) gives it a new resourceVersion.
   */
  private observe(lease: V1Lease): Observation {
    const record = `${lease.metadata?.resourceVersion ?? ''}/${lease.spec?.holderIdentity ?? ''}`;
    if (this.observed?.record !== record) this.observed = { record, at: this.opts.monotonic() };
    return this.observed;
  }

  /** One attempt; true when this candidate holds the Lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date(this.opts.now());
    const durationSeconds = Math.ceil(this.opts.leaseDurationMs / 1000);
    const lease = await this.read();
    if (!lease) {
      const spec = micro({
        holderIdentity: this.opts.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      });
      try {
        const created = await this.kube.coordination.createNamespacedLease(
          {
            namespace: this.kube.namespace,
            body: { metadata: { name: this.opts.leaseName, namespace: this.kube.namespace }, spec },
          },
          this.timeout(),
        );
        this.observe(created);
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    const spec = lease.spec ?? {};
    const mine = spec.holderIdentity === this.opts.identity;
    const seen = this.observe(lease);
    const heldFor = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    const expired = !spec.holderIdentity || seen.at + heldFor <= this.opts.monotonic();
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
      this.observe(
        await this.kube.coordination.replaceNamespacedLease(
          { name: this.opts.leaseName, namespace: this.kube.namespace, body: lease },
          this.timeout(),
        ),
      );
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
