/** A model slug as a label value (slashes are not allowed in label values). */
export function labelValue(slug: string): string {
  return slug.replaceAll('/', '.').slice(0, 63);
}

export const ACCOUNT_LABEL = 'genjobs.io/account';
export const MODEL_LABEL = 'genjobs.io/model';
/**
 * The ApiKey (its name, `key-…`, never the key) a job was submitted with: after a key leaks
 * and is revoked, `kubectl get gj -l genjobs.io/api-key=NAME` lists what it made (the
 * archived resource keeps it too: `genjobs history get`).
 */
export const API_KEY_LABEL = 'genjobs.io/api-key';
/**
 * When the api accepted a job, to the millisecond (an annotation): creationTimestamp has
 * whole seconds, and jobs submitted in one second must still start in the order they came.
 */
export const SUBMITTED_AT_ANNOTATION = 'genjobs.io/submitted-at';

/**
 * An Account being deleted (`genjobs accounts delete`): its keys stop working, and the
 * controller deletes its jobs, uploads and their files, and with `all` its job history
 * too, then sets the Account's `Erased` condition for the command to delete the Account.
 */
export const ERASE_ANNOTATION = 'genjobs.io/erase';
export type EraseMode = 'all' | 'keep-history';

/**
 * What an Account's erase annotation asks for; undefined without one. Any other value than
 * `all` or `keep-history` is `invalid`: nothing is erased (a typo must not erase a history
 * meant to be kept), though the account counts as being deleted (its keys are refused).
 */
export function eraseMode(account: {
  metadata?: { annotations?: Record<string, string> };
}): EraseMode | 'invalid' | undefined {
  const v = account.metadata?.annotations?.[ERASE_ANNOTATION];
  if (v === undefined) return undefined;
  return v === 'all' || v === 'keep-history' ? v : 'invalid';
}

/** The Account condition the controller sets once an erase is done, for the admin to delete the Account. */
export const ERASED_CONDITION = 'Erased';

/** The `Erased` condition's reason for each mode: a condition of the other mode is not done. */
export function erasedReason(mode: EraseMode | 'invalid'): string {
  return mode === 'all' ? 'AllErased' : mode === 'keep-history' ? 'HistoryKept' : 'InvalidValue';
}
