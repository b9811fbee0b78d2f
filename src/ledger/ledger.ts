import { AppError } from '../errors.ts';
import { isConflict } from '../k8s/errors.ts';
import { type CustomResources, later } from '../k8s/resources.ts';
import type { Account } from '../k8s/types.ts';
import { apply, type LedgerOp, type LedgerResult, normalized, sameLedger } from './ops.ts';

interface Pending {
  op: LedgerOp;
  resolve: (r: LedgerResult) => void;
  reject: (e: unknown) => void;
}

export interface LedgerOptions {
  accounts: CustomResources<Account>;
  /** Freshest known copy of an Account (an informer cache); a miss falls back to a GET. */
  cached?: (name: string) => Account | undefined;
  /** Called with the size of each batch written (metrics, benchmarks). */
  onBatch?: (size: number) => void;
  maxConflictRetries?: number;
  /**
   * Settlements (charge, refund) wait up to this long for company before they are written,
   * so a busy account pays one write for many finished jobs. A charge leaves the balance
   * as it is (the money left it at reservation), so waiting changes no answer the api gives
   * but the concurrency count, for this long. 0: write at once.
   */
  settleLingerMs?: number;
}

/**
 * The ledger's writer: every operation on an Account becomes part of one compare-and-swap
 * of its status. Operations on the same Account are group-committed: while one write is
 * in flight the next operations queue, and the next write applies all of them at once, in
 * arrival order, each accepted or refused on its own. An idle account pays one write per
 * operation; a busy one pays one write per batch, which is what keeps the Account off the
 * submit path's critical section. A conflict (another replica or the controller wrote
 * first) re-reads the Account and applies the same batch again.
 */
export class Ledger {
  private readonly opts: LedgerOptions;
  private readonly queues = new Map<string, Pending[]>();
  private readonly busy = new Set<string>();
  /** The object our own last write returned, fresher than the cache right after it. */
  private readonly lastWritten = new Map<string, Account>();
  private readonly lingering = new Map<string, NodeJS.Timeout>();
  private readonly draining = new Set<Promise<void>>();

  constructor(options: LedgerOptions) {
    this.opts = options;
  }

  run(account: string, op: LedgerOp): Promise<LedgerResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(account) ?? [];
      this.queues.set(account, queue);
      queue.push({ op, resolve, reject });
      if (this.busy.has(account)) return;
      const linger = this.opts.settleLingerMs ?? 0;
      const settle = op.kind === 'charge' || op.kind === 'refund';
      if (settle && linger > 0) {
        if (!this.lingering.has(account)) {
          this.lingering.set(
            account,
            setTimeout(() => {
              this.lingering.delete(account);
              if (!this.busy.has(account)) void this.drain(account);
            }, linger),
          );
        }
        return;
      }
      clearTimeout(this.lingering.get(account));
      this.lingering.delete(account);
      void this.drain(account);
    });
  }

  /** Writes every lingering settlement now and waits for all writes in flight (shutdown). */
  async flush(): Promise<void> {
    for (const [account, timer] of this.lingering) {
      clearTimeout(timer);
      this.lingering.delete(account);
      if (!this.busy.has(account)) void this.drain(account);
    }
    while (this.draining.size > 0) await Promise.allSettled([...this.draining]);
  }

  private drain(account: string): Promise<void> {
    const done = this.drainQueue(account).finally(() => this.draining.delete(done));
    this.draining.add(done);
    return done;
  }

  private async drainQueue(account: string): Promise<void> {
    this.busy.add(account);
    try {
      for (;;) {
        const batch = this.queues.get(account)?.splice(0) ?? [];
        if (batch.length === 0) break;
        try {
          const results = await this.commit(
            account,
            batch.map((p) => p.op),
          );
          for (const [i, p] of batch.entries()) p.resolve(results[i]!);
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.busy.delete(account);
      this.queues.delete(account);
    }
  }

  private async commit(name: string, ops: LedgerOp[]): Promise<LedgerResult[]> {
    this.opts.onBatch?.(ops.length);
    let current = this.freshest(name);
    const retries = this.opts.maxConflictRetries ?? 20;
    for (let attempt = 0; ; attempt++) {
      if (!current) current = await this.opts.accounts.get(name);
      if (!current) throw new AppError('UNAUTHORIZED_ACCESS', `account ${name} does not exist`);
      const status = normalized(current);
      const results = ops.map((op) => apply(status, op));
      if (sameLedger(current.status, status)) return results;
      try {
        const written = await this.opts.accounts.updateStatus({ ...current, status });
        this.lastWritten.set(name, written);
        return results;
      } catch (err) {
        if (!isConflict(err) || attempt >= retries) throw err;
        this.lastWritten.delete(name);
        current = undefined;
      }
    }
  }

  /** The balance in the freshest copy of an Account this process knows (its last write, else the cache). */
  knownBalance(name: string): number | undefined {
    return this.freshest(name)?.status?.balanceMicroCents;
  }

  /** The freshest copy of an Account this process knows: its last write, else the cache. */
  freshest(name: string): Account | undefined {
    return later(this.lastWritten.get(name), this.opts.cached?.(name));
  }
}
