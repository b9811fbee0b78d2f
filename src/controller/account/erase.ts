import type { ArchiveStore } from '../../archive/store.ts';
import { jobPrefix, uploadFolder } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import { ERASED_CONDITION, erasedReason, eraseMode } from '../../jobs/labels.ts';
import { retryOnConflict } from '../../k8s/cas.ts';
import type { EventRecorder } from '../../k8s/events.ts';
import type { Informer } from '../../k8s/informer.ts';
import type { CustomResources } from '../../k8s/resources.ts';
import { type Account, API_VERSION, type GenerationJob, isTerminal, type Upload } from '../../k8s/types.ts';
import type { HandlerResult } from '../../k8s/workqueue.ts';
import type { Logger } from '../../log.ts';
import { forHistory } from '../archive/archiver.ts';
import { setCondition } from '../conditions.ts';

export interface AccountEraserDeps {
  accounts: CustomResources<Account>;
  jobs: CustomResources<GenerationJob>;
  jobCache: Informer<GenerationJob>;
  uploads: CustomResources<Upload>;
  uploadCache: Informer<Upload>;
  /** The job history; none when GENJOBS_ARCHIVE=off. */
  archive?: ArchiveStore;
  blob: BlobStore;
  events: EventRecorder;
  log: Logger;
  now?: () => number;
}

/** Archive rows per pass: their files are deleted before the rows, a pass cut short is done again. */
const ROWS_PER_PASS = 500;
/** Deletes at once (resources, or files: a store such as S3 throttles a burst of thousands). */
const CONCURRENCY = 16;

/**
 * Erases what an Account marked for deletion (`genjobs.io/erase`) owns in the cluster and
 * the history: its live jobs (running ones stop; their Pods and files go with them) and
 * uploads, and with `all` its archived jobs, their output files, its archived uploads and
 * its upload folder. Its keys and webhook Secret are the admin's to delete (the command
 * does, before it asks), and so is the Account once the `Erased` condition says it is done:
 * the controller needs no right to delete Accounts, keys or Secrets.
 *
 * Each reconcile starts over from what is left, so a controller that stops halfway finishes
 * on the next one. The history goes only once no live job of the account is left (the
 * archiver, which skips an erased account's jobs, writes none after that).
 */
export class AccountEraser {
  private readonly d: AccountEraserDeps;

  constructor(deps: AccountEraserDeps) {
    this.d = deps;
  }

  async erase(account: Account): Promise<HandlerResult | undefined> {
    const d = this.d;
    const name = account.metadata.name ?? '';
    const mode = eraseMode(account);
    if (!mode) return undefined;
    const done = account.status?.conditions?.find((c) => c.type === ERASED_CONDITION);
    if (done?.status === 'True' && done.reason === erasedReason(mode)) return undefined;

    // Live jobs and uploads, from the caches: the api may make one more after they were
    // read (a submit accepted just before its key went), which the next pass deletes.
    const jobs = d.jobCache.list().filter((j) => j.spec.account === name);
    const uploads = d.uploadCache.list().filter((u) => u.spec.account === name);
    if (jobs.length > 0 || uploads.length > 0) {
      // Kept: its finished jobs' records, as the archiver would have written them.
      const finished = jobs.filter((j) => isTerminal(j.status?.phase));
      if (mode === 'keep-history' && d.archive && finished.length > 0)
        await d.archive.upsertJobs(finished.map(forHistory));
      await inBatches(jobs, (j) => d.jobs.delete(j.metadata.name ?? '', { uid: j.metadata.uid }));
      await inBatches(uploads, (u) => d.uploads.delete(u.metadata.name ?? '', { uid: u.metadata.uid }));
      d.log.info(
        { account: name, jobs: jobs.length, uploads: uploads.length },
        'erasing an account: deleted its live jobs and uploads',
      );
      // Back once the caches show them gone (their reconcilers remove Pods and files).
      return { requeueAfterMs: 1_000 };
    }

    let rows = 0;
    if (mode === 'all') {
      if (d.archive) rows = await this.eraseHistory(d.archive, account);
      await d.blob.deletePrefix(`uploads/${uploadFolder(account.metadata.uid ?? '')}/`);
    }
    await retryOnConflict(async () => {
      const fresh = await d.accounts.get(name);
      if (!fresh || fresh.metadata.uid !== account.metadata.uid) return;
      const conditions = setCondition(
        fresh.status?.conditions,
        {
          type: ERASED_CONDITION,
          status: 'True',
          reason: erasedReason(mode),
          message:
            mode === 'all'
              ? 'its jobs, uploads, files and history are erased: delete the Account'
              : 'its live jobs and uploads are erased (the history stays until its retention): delete the Account',
        },
        new Date(d.now?.() ?? Date.now()),
      );
      await d.accounts.updateStatus({ ...fresh, status: { ...fresh.status, conditions } });
    });
    d.log.info({ account: name, mode, archivedRows: rows }, 'erased an account');
    void d.events.record(
      { apiVersion: API_VERSION, kind: 'Account', name, uid: account.metadata.uid },
      'Normal',
      ERASED_CONDITION,
      mode === 'all' ? `erased, with ${rows} archived rows` : 'erased; its history is kept',
    );
    return undefined;
  }

  /** Deletes the account's archived rows, each job's files first; returns how many rows went. */
  private async eraseHistory(archive: ArchiveStore, account: Account): Promise<number> {
    const name = account.metadata.name ?? '';
    let total = 0;
    for (;;) {
      const rows = await archive.accountRows(name, account.metadata.creationTimestamp, ROWS_PER_PASS);
      await inBatches(
        rows.filter((r) => r.kind === 'job'),
        (r) => this.d.blob.deletePrefix(jobPrefix(r.id)),
      );
      if (rows.length > 0) total += await archive.deleteRows(rows);
      if (rows.length < ROWS_PER_PASS) return total;
    }
  }
}

async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY)
    await Promise.all(items.slice(i, i + CONCURRENCY).map(fn));
}
