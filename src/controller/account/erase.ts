import { eraseAccountHistory } from '../../archive/erase.ts';
import type { ArchiveStore } from '../../archive/store.ts';
import { inBatches } from '../../batches.ts';
import { uploadFolder } from '../../blob/keys.ts';
import type { BlobStore } from '../../blob/store.ts';
import {
  ERASE_ANNOTATION,
  ERASED_CONDITION,
  type EraseMode,
  erasedReason,
  eraseMode,
} from '../../jobs/labels.ts';
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

/** Resources deleted at once. */
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
    if (done?.reason === erasedReason(mode)) return undefined;
    if (mode === 'invalid') {
      const value = account.metadata.annotations?.[ERASE_ANNOTATION];
      const message = `${ERASE_ANNOTATION} is "${value}": "all" or "keep-history"; nothing is erased until it is one of them (its keys are refused meanwhile)`;
      await this.setErased(account, 'False', mode, message);
      d.log.warn(
        { account: name, value },
        'an account marked for erasing with an unknown value; nothing erased',
      );
      void d.events.record(
        { apiVersion: API_VERSION, kind: 'Account', name, uid: account.metadata.uid },
        'Warning',
        'EraseRefused',
        message,
      );
      return undefined;
    }

    // Live jobs and uploads, from the caches: the api may make one more after they were
    // read (a submit accepted just before its key went), which the next pass deletes.
    const jobs = d.jobCache.list().filter((j) => j.spec.account === name);
    const uploads = d.uploadCache.list().filter((u) => u.spec.account === name);
    if (jobs.length > 0 || uploads.length > 0) {
      // Kept: its finished jobs' records, as the archiver would have written them.
      const finished = jobs.filter((j) => isTerminal(j.status?.phase));
      if (mode === 'keep-history' && d.archive && finished.length > 0)
        await d.archive.upsertJobs(finished.map(forHistory));
      await inBatches(jobs, CONCURRENCY, (j) =>
        d.jobs.delete(j.metadata.name ?? '', { uid: j.metadata.uid }),
      );
      await inBatches(uploads, CONCURRENCY, (u) =>
        d.uploads.delete(u.metadata.name ?? '', { uid: u.metadata.uid }),
      );
      d.log.info(
        { account: name, jobs: jobs.length, uploads: uploads.length },
        'erasing an account: deleted its live jobs and uploads',
      );
      // Back once the caches show them gone (their reconcilers remove Pods and files).
      return { requeueAfterMs: 1_000 };
    }

    let rows = 0;
    if (mode === 'all') {
      if (d.archive)
        rows = await eraseAccountHistory(d.archive, d.blob, name, {
          since: account.metadata.creationTimestamp,
        });
      await d.blob.deletePrefix(`uploads/${uploadFolder(account.metadata.uid ?? '')}/`);
    }
    await this.setErased(
      account,
      'True',
      mode,
      mode === 'all'
        ? 'its jobs, uploads, files and history are erased: delete the Account'
        : 'its live jobs and uploads are erased (the history stays until its retention): delete the Account',
    );
    d.log.info({ account: name, mode, archivedRows: rows }, 'erased an account');
    void d.events.record(
      { apiVersion: API_VERSION, kind: 'Account', name, uid: account.metadata.uid },
      'Normal',
      ERASED_CONDITION,
      mode === 'all' ? `erased, with ${rows} archived rows` : 'erased; its history is kept',
    );
    return undefined;
  }

  /** Sets the Account's `Erased` condition, on its current copy (the ledger writes its status too). */
  private async setErased(
    account: Account,
    status: 'True' | 'False',
    mode: EraseMode | 'invalid',
    message: string,
  ): Promise<void> {
    const d = this.d;
    await retryOnConflict(async () => {
      const fresh = await d.accounts.get(account.metadata.name ?? '');
      if (!fresh || fresh.metadata.uid !== account.metadata.uid) return;
      const conditions = setCondition(
        fresh.status?.conditions,
        { type: ERASED_CONDITION, status, reason: erasedReason(mode), message },
        new Date(d.now?.() ?? Date.now()),
      );
      await d.accounts.updateStatus({ ...fresh, status: { ...fresh.status, conditions } });
    });
  }
}
