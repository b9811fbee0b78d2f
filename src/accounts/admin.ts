import { AppError } from '../errors.ts';
import {
  ACCOUNT_LABEL,
  ERASE_ANNOTATION,
  ERASED_CONDITION,
  type EraseMode,
  erasedReason,
} from '../jobs/labels.ts';
import { retryOnConflict } from '../k8s/cas.ts';
import { isAlreadyExists, statusCode } from '../k8s/errors.ts';
import type { Resources } from '../k8s/resources.ts';
import { type Account, API_VERSION, type ApiKey, SCOPES, type Scope } from '../k8s/types.ts';
import { MAX_GRANT_MICRO_CENTS } from '../ledger/limits.ts';
import { apiKeyName, displayPrefix, generateKey, hashKey, KEY_PATTERN, KEY_PREFIX } from './keys.ts';

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface NewAccount {
  name: string;
  plan?: string;
  grantMicroCents?: number;
  segments?: string[];
  allowedModels?: string[];
  discountPercent?: number;
}

/** The most an account's total grant may be (the Account CRD's bound on grantedMicroCents). */
const MAX_GRANT_IN_WORDS = `${MAX_GRANT_MICRO_CENTS} micro-cents ($1,000,000,000; a micro-cent is a millionth of a dollar)`;

/** Administrative operations on Accounts and ApiKeys, shared by the CLI and dev mode. */
export class AccountAdmin {
  private readonly r: Resources;
  private readonly now: () => number;

  /** `now`: the apiserver's time (Kube.clock), so a key's expiry does not follow the admin's machine's clock. */
  constructor(resources: Resources, now: () => number = Date.now) {
    this.r = resources;
    this.now = now;
  }

  async createAccount(a: NewAccount): Promise<Account> {
    if (!NAME.test(a.name) || a.name.length > 63) {
      throw new AppError(
        'VALIDATION_ERROR',
        'an account name is a lower-case DNS label (a-z, 0-9, -), at most 63 characters',
      );
    }
    if ((a.grantMicroCents ?? 0) > MAX_GRANT_MICRO_CENTS) {
      throw new AppError('VALIDATION_ERROR', `a grant is at most ${MAX_GRANT_IN_WORDS}`);
    }
    await this.refuseTakeover(a.name);
    try {
      return await this.r.accounts.create({
        metadata: { name: a.name },
        spec: {
          plan: a.plan ?? 'free',
          grantedMicroCents: a.grantMicroCents ?? 0,
          ...(a.segments?.length ? { segments: a.segments } : {}),
          ...(a.allowedModels?.length ? { allowedModels: a.allowedModels } : {}),
          ...(a.discountPercent ? { discount: { type: 'account', percentage: a.discountPercent } } : {}),
        },
      });
    } catch (err) {
      if (isAlreadyExists(err)) throw new AppError('VALIDATION_ERROR', `account ${a.name} already exists`);
      throw err;
    }
  }

  /**
   * An account's name is how its keys, jobs and uploads find it: a new account of a deleted
   * one's name would take over whatever of those is left (its keys would sign in to it, its
   * jobs would be listed to it). Refused while any remain.
   */
  private async refuseTakeover(name: string): Promise<void> {
    if (await this.r.accounts.get(name)) return; // the create answers "already exists"
    const selector = { labelSelector: `${ACCOUNT_LABEL}=${name}`, limit: 1 };
    const [keys, jobs, uploads] = await Promise.all([
      whileStorageStarts(() => this.r.apiKeys.list(selector)),
      whileStorageStarts(() => this.r.jobs.list({ fieldSelector: `spec.account=${name}`, limit: 1 })),
      whileStorageStarts(() => this.r.uploads.list(selector)),
    ]);
    const left = [
      keys.items.length ? 'API keys (genjobs keys list --account; revoke them)' : '',
      jobs.items.length
        ? 'jobs (kubectl get gj --field-selector spec.account=NAME; they leave once finished)'
        : '',
      uploads.items.length ? 'uploads (they leave once expired)' : '',
    ].filter(Boolean);
    if (left.length === 0) return;
    throw new AppError(
      'VALIDATION_ERROR',
      `a deleted account named ${name} still has ${left.join(', ').replaceAll('NAME', name)}: a new account of that name would take them over; remove them or choose another name`,
    );
  }

  /**
   * Adds credit: raises the account's total grant; the ledger applies the difference once.
   * Counted from what the ledger has applied when that is more than the grant (a grant
   * lowered by hand, which the ledger never takes back: Ready=False, GrantLowered), so the
   * whole top-up reaches the balance, not only what passes the applied total.
   */
  async grant(name: string, microCents: number): Promise<Account> {
    if (!Number.isSafeInteger(microCents) || microCents <= 0) {
      throw new AppError('VALIDATION_ERROR', 'a grant is a positive whole number of micro-cents');
    }
    return retryOnConflict(async () => {
      const current = await this.getAccount(name);
      const applied = current.status?.appliedGrantMicroCents ?? 0;
      const total = Math.max(current.spec.grantedMicroCents, applied) + microCents;
      if (total > MAX_GRANT_MICRO_CENTS) {
        throw new AppError(
          'VALIDATION_ERROR',
          `the total grant would be ${total} micro-cents, past the most an account holds: ${MAX_GRANT_IN_WORDS}`,
        );
      }
      current.spec.grantedMicroCents = total;
      return this.r.accounts.update(current);
    });
  }

  async getAccount(name: string): Promise<Account> {
    const a = await this.r.accounts.get(name);
    if (!a) throw new AppError('NOT_FOUND', `account ${name} not found`);
    return a;
  }

  listAccounts(): Promise<Account[]> {
    return this.r.accounts.listAll();
  }

  /** Creates a key and returns its secret: the only moment the secret exists outside the caller. */
  async createKey(
    account: string,
    scopes: string[],
    expiresInMs?: number,
  ): Promise<{ key: string; apiKey: ApiKey }> {
    // 0 is a key that has expired already, not one without an expiry (leave it out for that).
    if (expiresInMs !== undefined && !(expiresInMs > 0)) {
      throw new AppError('VALIDATION_ERROR', `a key's lifetime is more than 0 ms, not ${expiresInMs}`);
    }
    const owner = await this.getAccount(account);
    const unknown = scopes.filter((s) => !SCOPES.includes(s as Scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new AppError(
        'VALIDATION_ERROR',
        `scopes must be some of ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
      );
    }
    const key = generateKey();
    const keyHash = hashKey(key);
    const apiKey = await this.r.apiKeys.create({
      metadata: {
        name: apiKeyName(keyHash),
        labels: { [ACCOUNT_LABEL]: account },
        // The key is its account's: it goes with it (garbage collection), and a later account
        // of the same name (another uid) does not accept it either way.
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'Account', name: account, uid: owner.metadata.uid ?? '' },
        ],
      },
      spec: {
        account,
        scopes: [...new Set(scopes)] as Scope[],
        keyHash,
        prefix: displayPrefix(key),
        ...(expiresInMs !== undefined ? { expiresAt: new Date(this.now() + expiresInMs).toISOString() } : {}),
      },
    });
    return { key, apiKey };
  }

  /**
   * Deletes an account: revokes its keys, marks it for the controller to erase its jobs,
   * uploads and files (and, with `all`, its job history), waits for the `Erased` condition,
   * then deletes the Account. Each step may be run again: an erase cut short (a timeout, a
   * Ctrl-C) is finished by running it again. `progress` hears what it waits for.
   */
  async deleteAccount(
    name: string,
    mode: EraseMode,
    options: {
      timeoutMs: number;
      pollMs?: number;
      progress?: (message: string) => void;
      /** Runs once the data is erased, before the Account goes (the CLI deletes the webhook Secret). */
      beforeDelete?: () => Promise<void>;
    },
  ): Promise<{ keysRevoked: number; alreadyGone?: { jobsLeft: number; uploadsLeft: number } }> {
    const found = await this.r.accounts.get(name);
    const keys = await this.listKeys(name);
    await Promise.all(keys.map((k) => this.r.apiKeys.delete(k.metadata.name ?? '')));
    if (!found) {
      // Deleted already (a run whose last step went, or a plain delete): what it left of its
      // own (keys, the Secret) still goes; without the Account there is nothing to erase by.
      await options.beforeDelete?.();
      // Its jobs and uploads are the controller's to delete (with their Pods and files),
      // which it does for a marked Account only: counted, for the admin to be told.
      const [jobs, uploads] = await Promise.all([
        this.r.jobs.listAll({ fieldSelector: `spec.account=${name}` }),
        this.r.uploads.listAll({ labelSelector: `${ACCOUNT_LABEL}=${name}` }),
      ]);
      return {
        keysRevoked: keys.length,
        alreadyGone: { jobsLeft: jobs.length, uploadsLeft: uploads.length },
      };
    }
    const account = found;
    const marked = await retryOnConflict(async () => {
      const current = await this.getAccount(name);
      if (current.metadata.uid !== account.metadata.uid) throw gone(name);
      if (current.metadata.annotations?.[ERASE_ANNOTATION] === mode) return current;
      current.metadata.annotations = { ...current.metadata.annotations, [ERASE_ANNOTATION]: mode };
      return this.r.accounts.update(current);
    });
    options.progress?.(
      `account ${name}: keys revoked (${keys.length}); waiting for the controller to erase its data`,
    );
    const deadline = Date.now() + options.timeoutMs;
    for (let a = marked; !erased(a, mode); ) {
      if (Date.now() >= deadline)
        throw new AppError(
          'UNAVAILABLE',
          `the controller has not finished erasing account ${name} (is it running? kubectl -n ${this.r.accounts.namespace} get account ${name} -o yaml shows its conditions); run the command again to go on`,
        );
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1_000));
      // The apiserver away for a moment (a restart) is waited out like the controller.
      const current = await this.r.accounts.get(name).catch((err: unknown) => {
        if (statusCode(err) !== undefined && statusCode(err)! < 500) throw err;
        options.progress?.(
          `account ${name}: the apiserver did not answer (${String((err as Error).message ?? err)}); waiting`,
        );
        return a;
      });
      if (!current || current.metadata.uid !== account.metadata.uid) throw gone(name);
      a = current;
    }
    await options.beforeDelete?.();
    await this.r.accounts.delete(name, { uid: account.metadata.uid });
    return { keysRevoked: keys.length };
  }

  async listKeys(account?: string): Promise<ApiKey[]> {
    return this.r.apiKeys.listAll(account ? { labelSelector: `${ACCOUNT_LABEL}=${account}` } : {});
  }

  /**
   * Revokes a key by deleting it; it stops working as soon as the api's cache sees the
   * delete. The key is named by its ApiKey name (`key-…`), by the key itself (a leaked one,
   * as found in a log or a repository) or by the prefix `keys list` shows. Answers its name.
   */
  async revokeKey(given: string): Promise<string> {
    const name = await this.keyName(given);
    if (!(await this.r.apiKeys.delete(name))) throw keyNotFound(given, name);
    return name;
  }

  /** The ApiKey name of a key given as its name, the key itself, or its listed prefix (one key's). */
  private async keyName(given: string): Promise<string> {
    if (KEY_PATTERN.test(given)) return apiKeyName(hashKey(given));
    if (!given.startsWith(KEY_PREFIX)) return given;
    const matching = (await this.listKeys()).filter((k) => given.startsWith(k.spec.prefix));
    if (matching.length === 1) return matching[0]!.metadata.name ?? '';
    if (matching.length === 0) throw keyNotFound(given);
    throw new AppError(
      'VALIDATION_ERROR',
      `${matching.length} API keys start with ${given} (${matching.map((k) => `${k.metadata.name} of ${k.spec.account}`).join(', ')}): revoke one by its name`,
    );
  }
}

function erased(account: Account, mode: EraseMode): boolean {
  const c = account.status?.conditions?.find((x) => x.type === ERASED_CONDITION);
  return c?.status === 'True' && c.reason === erasedReason(mode);
}

function keyNotFound(given: string, name = given): AppError {
  // A key itself is said by its prefix: an error message is no place for a secret.
  const said = KEY_PATTERN.test(given) ? `${displayPrefix(given)}…` : given;
  const as = name === given ? '' : ` (ApiKey ${name})`;
  return new AppError(
    'NOT_FOUND',
    `no API key ${said}${as}: revoked already, or never made here; genjobs keys list shows each key's name and prefix`,
  );
}

function gone(name: string): AppError {
  return new AppError('NOT_FOUND', `account ${name} was deleted (or made again) by someone else meanwhile`);
}

/**
 * A list of a kind whose CRD was applied a moment ago (a fresh install) is answered 429
 * "storage is (re)initializing" until the apiserver's cache of it is ready: retried for up
 * to 10 s, as client-go retries a 429.
 */
async function whileStorageStarts<T>(list: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (err) {
      if (statusCode(err) !== 429 || attempt >= 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
