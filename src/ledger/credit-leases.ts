import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { Ledger } from './ledger.ts';

export interface CreditLeasesOptions {
  ledger: Ledger;
  /** How long a replica draws from one lease. */
  termMs: number;
  now?: () => number;
  /** Called with each lease's amount once it is taken (metrics, benchmarks). */
  onLease?: (amount: number) => void;
  /** Failures to give back a remainder (the Account reconciler returns it at the close). */
  onError?: (err: unknown) => void;
  /** What the jobs naming a lease cost (Money.drawnFrom): another replica's lease's undrawn part is its amount less that. */
  drawnFrom?: (lease: string) => number;
}

/** Money drawn from a lease for one submit: name the lease on the job, then say how the create went. */
export interface Draw {
  lease: string;
  cost: number;
  /**
   * `created`: the job exists; `absent`: the create was refused and the job cannot exist,
   * so the money returns to the lease; `unknown`: it may exist, so the money stays drawn.
   */
  done(outcome: 'created' | 'absent' | 'unknown'): void;
}

interface Open {
  id: string;
  account: string;
  amount: number;
  drawn: number;
  expiresAt: number;
  inflight: number;
  retired: boolean;
}

/** Added to a lease's written expiry for the time its write may take on a loaded apiserver. */
const WRITE_SLACK_MS = 5_000;

/** Headroom of a lease for an account without recent submits, in submits of the cost asked. */
const MIN_HEADROOM_SUBMITS = 8;

/**
 * This api replica's credit leases (docs/money.md): submits draw their cost from a lease
 * held in memory and write only the job. A lease is taken in one Account write for the
 * submits waiting at that moment plus about a second of the account's submits, and when
 * its term ends (or a newer lease replaces it) and no create drawn from it is in flight,
 * what was not drawn goes back in one more write, shared with the next lease's through
 * the ledger's group commit. A replica that dies keeps nothing: the Account reconciler
 * closes its leases from the jobs that name them.
 */
export class CreditLeases {
  private readonly o: CreditLeasesOptions;
  private readonly open = new Map<string, Open[]>();
  /** The lease write in flight per account. */
  private readonly taking = new Map<string, Promise<number | undefined>>();
  private readonly waiting = new Map<string, number>();
  /** Cost drawn per account in the current and the previous second: the headroom of a lease. */
  private readonly rate = new Map<string, { second: number; now: number; before: number }>();

  constructor(options: CreditLeasesOptions) {
    this.o = options;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Draws `cost` for a submit of `account`, taking a new lease if none has room; 402 when the balance cannot, 503 when leases keep running out first. */
  async draw(account: string, cost: number): Promise<Draw> {
    let reclaimed = false;
    for (let attempt = 0; attempt < 10; attempt++) {
      const drawn = this.tryDraw(account, cost);
      if (drawn) return drawn;
      this.wait(account, cost);
      let refused: number | undefined;
      try {
        refused = await this.take(account, cost);
      } finally {
        this.wait(account, -cost);
      }
      if (refused === undefined) continue;
      // The balance cannot pay for it, but with what this replica's own leases hold unused
      // it could (a small job's lease, then a large job): those go back first, then one more
      // try. A 402 is for a job the account cannot pay for, not one a lease stood in front of.
      if (!reclaimed && refused + this.unused(account) >= cost) {
        reclaimed = true;
        await this.reclaim(account);
        continue;
      }
      throw this.insufficient(account, cost, refused);
    }
    // Every lease it waited for was drawn by other submits first. A balance that cannot pay
    // for it any more is a 402 as above; an ample one (leases arriving spent under heavy
    // load) means the same submit succeeds a moment later, so it is told to retry.
    const balance = this.o.ledger.knownBalance(account);
    if (balance !== undefined && balance < cost) throw this.insufficient(account, cost, balance);
    throw new AppError('UNAVAILABLE', 'no credit lease had room for the job in time; please retry', {
      retryAfterSeconds: 1,
    });
  }

  /** The cost of the submits of an account waiting for a lease: the next lease's demand. */
  private wait(account: string, cost: number): void {
    const sum = (this.waiting.get(account) ?? 0) + cost;
    if (sum > 0) this.waiting.set(account, sum);
    else this.waiting.delete(account);
  }

  private tryDraw(account: string, cost: number): Draw | undefined {
    const now = this.now();
    this.retireExpired(account, now);
    const lease = this.open.get(account)?.find((l) => !l.retired && l.amount - l.drawn >= cost);
    if (!lease) return undefined;
    lease.drawn += cost;
    lease.inflight += 1;
    this.count(account, cost, now);
    this.prefetch(account, lease);
    let settled = false;
    return {
      lease: lease.id,
      cost,
      done: (outcome) => {
        if (settled) return;
        settled = true;
        lease.inflight -= 1;
        if (outcome === 'absent') lease.drawn -= cost;
        if (lease.retired) void this.release(lease);
      },
    };
  }

  private count(account: string, cost: number, now: number): void {
    const second = Math.floor(now / 1000);
    const r = this.rate.get(account) ?? { second, now: 0, before: 0 };
    if (r.second !== second) {
      r.before = r.second === second - 1 ? r.now : 0;
      r.now = 0;
      r.second = second;
    }
    r.now += cost;
    this.rate.set(account, r);
  }

  /** What the account's submits draw in one term, at the rate of its latest second. */
  private headroom(account: string): number {
    const r = this.rate.get(account);
    if (!r) return 0;
    const second = Math.floor(this.now() / 1000);
    const perSecond = r.second === second ? Math.max(r.now, r.before) : r.second === second - 1 ? r.now : 0;
    return Math.ceil((perSecond * this.o.termMs) / 1000);
  }

  /**
   * One lease write at a time per account: a submit that finds one in flight waits for it
   * and draws again (the write's demand counts every submit waiting when it is made).
   * Resolves with the balance if refused.
   */
  private take(account: string, cost: number): Promise<number | undefined> {
    const current = this.taking.get(account);
    if (current)
      return current.then(
        () => undefined,
        () => undefined,
      );
    const done = this.write(account, cost).finally(() => this.taking.delete(account));
    this.taking.set(account, done);
    return done;
  }

  /** Writes a lease for the submits waiting (the cheapest of them: `min`) and the headroom. */
  private async write(account: string, min: number): Promise<number | undefined> {
    const now = this.now();
    const demand = Math.max(min, this.waiting.get(account) ?? 0);
    // No history yet (a new or idle account): a few submits' worth, if the balance is ample.
    const headroom = Math.max(this.headroom(account), MIN_HEADROOM_SUBMITS * min);
    if (demand === 0 && headroom === 0) return undefined;
    const id = `l-${randomBytes(8).toString('hex')}`;
    // The written expiry leaves room for a slow write; the replica draws for one term after
    // the lease arrives, and never past the written expiry (the close relies on it).
    const expiresAt = now + this.o.termMs + WRITE_SLACK_MS;
    const r = await this.o.ledger
      .run(account, {
        kind: 'lease',
        id,
        expiresAt: new Date(expiresAt).toISOString(),
        demand,
        min,
        headroom,
      })
      .catch((err) => {
        this.o.onError?.(err);
        throw err;
      });
    if (!r.ok) return r.balance;
    if (r.amount === 0) return undefined;
    this.o.onLease?.(r.amount);
    const until = Math.min(expiresAt, this.now() + this.o.termMs);
    const lease: Open = {
      id,
      account,
      amount: r.amount,
      drawn: 0,
      expiresAt: until,
      inflight: 0,
      retired: false,
    };
    this.open.set(account, [...(this.open.get(account) ?? []), lease]);
    // An idle replica gives the remainder back at the end of the term, not at its next submit.
    setTimeout(() => void this.retire(lease), Math.max(0, until - this.now()) + 1).unref();
    return undefined;
  }

  /** Credit this replica's open leases of the account hold and have not drawn. */
  private unused(account: string): number {
    let sum = 0;
    for (const l of this.open.get(account) ?? []) if (!l.retired) sum += l.amount - l.drawn;
    return sum;
  }

  /** Retires the account's open leases and waits for their remainders to be back on the balance. */
  private async reclaim(account: string): Promise<void> {
    const leases = (this.open.get(account) ?? []).filter((l) => !l.retired);
    await Promise.all(leases.map((l) => this.retire(l)));
  }

  /** Takes the next lease before this one runs out, so that submits rarely wait for a lease write. */
  private prefetch(account: string, lease: Open): void {
    if (this.taking.has(account) || lease.amount - lease.drawn > lease.amount / 4) return;
    if (this.open.get(account)?.some((l) => l !== lease && !l.retired)) return;
    void this.take(account, 0).catch(() => {});
  }

  private retireExpired(account: string, now: number): void {
    for (const l of this.open.get(account) ?? []) if (now >= l.expiresAt) void this.retire(l);
  }

  private retire(lease: Open): Promise<void> {
    if (lease.retired) return Promise.resolve();
    lease.retired = true;
    return this.release(lease);
  }

  /**
   * Gives back what a retired lease did not pay for, once no create drawn from it is in
   * flight (the last one's end calls this again); resolves when the write is done.
   */
  private release(lease: Open): Promise<void> {
    if (lease.inflight > 0) return Promise.resolve();
    const list = this.open.get(lease.account) ?? [];
    const rest = list.filter((l) => l !== lease);
    if (rest.length > 0) this.open.set(lease.account, rest);
    else this.open.delete(lease.account);
    if (lease.drawn >= lease.amount) return Promise.resolve();
    return this.o.ledger.run(lease.account, { kind: 'release', id: lease.id, keep: lease.drawn }).then(
      () => undefined,
      (err) => this.o.onError?.(err),
    );
  }

  /**
   * The 402 for a job the balance cannot pay for. What other api replicas' leases hold
   * undrawn (their amount less the jobs that name them) comes back: at the end of a lease's
   * term when its replica gives it back, or at its close after the grace when the replica
   * died. While that would pay for the job the 402 is retryable, with Retry-After at the
   * soonest of those moments, at most 30 s (a client that trusts `retryable` would otherwise
   * give up on credit it has).
   */
  private insufficient(account: string, cost: number, balance: number): AppError {
    const now = this.now();
    const mine = new Set((this.open.get(account) ?? []).map((l) => l.id));
    let undrawn = 0;
    let soonest: number | undefined;
    for (const [id, l] of Object.entries(this.o.ledger.freshest(account)?.status?.leases ?? {})) {
      if (mine.has(id)) continue;
      const left = l.amount - (this.o.drawnFrom?.(id) ?? 0);
      if (left <= 0) continue;
      undrawn += left;
      const end = Date.parse(l.expiresAt);
      // Past its end and still open: its replica did not give it back; the close will.
      const back = end > now ? end : now + MAX_LEASE_WAIT_S * 1000;
      soonest = Math.min(soonest ?? back, back);
    }
    const message = `the job costs ${cost} micro-cents and the balance is ${balance}`;
    if (soonest === undefined || balance + undrawn < cost)
      return new AppError('INSUFFICIENT_BALANCE', message);
    const retryAfterSeconds = Math.min(MAX_LEASE_WAIT_S, Math.max(1, Math.ceil((soonest - now) / 1000) + 1));
    return new AppError(
      'INSUFFICIENT_BALANCE',
      `${message}; other api replicas' credit leases hold ${undrawn} not yet drawn, which returns to the balance when they end: retry in ${retryAfterSeconds} s`,
      { retryable: true, retryAfterSeconds },
    );
  }

  /** Retires every lease now (shutdown), so their remainders go back before the process ends. */
  retireAll(): void {
    for (const leases of [...this.open.values()]) for (const l of leases) void this.retire(l);
  }
}

/** The longest Retry-After of a 402 while other replicas' leases are open (their term and slack). */
const MAX_LEASE_WAIT_S = 30;
