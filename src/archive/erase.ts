import { inBatches } from '../batches.ts';
import { jobPrefix } from '../blob/keys.ts';
import type { BlobStore } from '../blob/store.ts';
import type { ArchiveStore, CreatedRange } from './store.ts';

/** Rows per pass: their files are deleted before the rows, so a pass cut short is done again. */
const ROWS_PER_PASS = 500;
/** Files deleted at once: a store (S3) throttles a burst of thousands. */
const FILE_CONCURRENCY = 16;

/**
 * Deletes an account's archived jobs and uploads created in `range`: each job's output
 * files and each upload's file (gone already when it expired; deleting again is harmless)
 * before its row. Returns how many rows went. Used by the controller when it erases an
 * Account and by `genjobs history erase` for one already deleted.
 */
export async function eraseAccountHistory(
  archive: ArchiveStore,
  blob: BlobStore,
  account: string,
  range: CreatedRange,
): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await archive.accountRows(account, range, ROWS_PER_PASS);
    await inBatches(rows, FILE_CONCURRENCY, async (r) => {
      if (r.kind === 'job') await blob.deletePrefix(jobPrefix(r.id));
      else if (r.objectKey) await blob.delete(r.objectKey);
    });
    if (rows.length > 0) total += await archive.deleteRows(rows);
    if (rows.length < ROWS_PER_PASS) return total;
  }
}
