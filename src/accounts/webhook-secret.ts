import { retryOnConflict } from '../k8s/cas.ts';
import type { Kube } from '../k8s/client.ts';
import { isAlreadyExists, isForbidden } from '../k8s/errors.ts';
import { createSecret, deleteSecret, getSecret, replaceSecret, type Secret } from '../k8s/secrets.ts';
import { API_VERSION } from '../k8s/types.ts';
import { generateWebhookSecret, secretKey } from '../webhooks/sign.ts';

/** Name of the Secret holding an account's webhook signing secrets. */
export function webhookSecretName(account: string): string {
  return `genjobs-webhook-${account}`;
}

/**
 * The uid of the Account a Secret was made for. A Secret kept in a namespace of its own has
 * no owner reference (see build), so it outlives its Account: a new account of the same name
 * must get a secret of its own, not the deleted one's.
 */
export const ACCOUNT_UID_ANNOTATION = 'genjobs.io/account-uid';

/**
 * The namespace of the genjobs install a Secret was made by. Two installs given one
 * webhooks.secretNamespace would otherwise take each other's `genjobs-webhook-demo` as their
 * own demo's: sign with it, replace it as a deleted namesake's, delete it with the account.
 * A Secret without it (made before it was written) is taken as this install's.
 */
export const INSTALL_NAMESPACE_ANNOTATION = 'genjobs.io/install-namespace';

/** Until when the previous secret keeps signing after a rotation (ISO 8601). */
export const PREVIOUS_UNTIL_ANNOTATION = 'genjobs.io/previous-until';
/** How long both secrets sign after a rotation unless told otherwise. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** One account's webhook secrets as stored. */
export interface AccountWebhookSecret {
  account: string;
  /** `whsec_…`: signs every webhook. */
  current: string;
  /** The secret before the last rotation: also signs until `previousUntil`. */
  previous?: string;
  previousUntil?: string;
}

/** The Account a Secret belongs to: deleting the Account lets the garbage collector remove it. */
export interface SecretOwner {
  name: string;
  uid?: string | undefined;
}

export interface WebhookSecretsOptions {
  kube: Kube;
  /**
   * Where the Secrets live (GENJOBS_WEBHOOK_SECRET_NAMESPACE); default: the connection's
   * namespace. A namespace of their own lets RBAC confine the controller's Secret rights to it.
   */
  namespace?: string | undefined;
  now?: () => number;
  generate?: () => string;
}

/**
 * Per-account webhook signing secrets (Standard Webhooks `whsec_…`), one Secret per account
 * named {@link webhookSecretName}, data keys `current` and, during a rotation overlap,
 * `previous`. Webhooks are signed with every secret that is in force, so a receiver that
 * still holds the old secret and one that already has the new one both accept them.
 * The controller creates the Secret on first need; `genjobs accounts webhook-secret` shows
 * and rotates it. Every write is a compare-and-swap, so two creators or two rotations
 * cannot lose a secret a receiver was already given.
 */
export class WebhookSecrets {
  private readonly kube: Kube;
  private readonly namespace: string;
  private readonly now: () => number;
  private readonly generate: () => string;

  constructor(options: WebhookSecretsOptions) {
    this.kube = options.kube;
    this.namespace = options.namespace || options.kube.namespace;
    this.now = options.now ?? Date.now;
    this.generate = options.generate ?? (() => generateWebhookSecret());
  }

  async get(account: string): Promise<AccountWebhookSecret | undefined> {
    const secret = await this.read(account);
    return secret && parse(account, secret);
  }

  /** Deletes the account's signing Secret (the account is being deleted); false when it had none. */
  async delete(account: string): Promise<boolean> {
    if (!(await this.read(account))) return false;
    return deleteSecret(this.kube, webhookSecretName(account), this.namespace);
  }

  /** The account's Secret, refused when another install made it (see INSTALL_NAMESPACE_ANNOTATION). */
  private async read(account: string): Promise<Secret | undefined> {
    const secret = await getSecret(this.kube, webhookSecretName(account), this.namespace);
    const madeBy = secret?.metadata?.annotations?.[INSTALL_NAMESPACE_ANNOTATION];
    if (madeBy !== undefined && madeBy !== this.kube.namespace)
      throw new Error(
        `the webhook Secret ${webhookSecretName(account)} in namespace ${this.namespace} belongs to the genjobs install in namespace ${madeBy}, not this one (${this.kube.namespace}); give each install its own webhooks.secretNamespace`,
      );
    return secret;
  }

  /**
   * The account's secrets, created with a fresh `current` when there are none yet, or when
   * the Secret of its name was made for a deleted account of that name (it is replaced).
   */
  async ensure(account: string, owner?: SecretOwner): Promise<AccountWebhookSecret> {
    return retryOnConflict(async () => {
      const existing = await this.read(account);
      if (existing && !ofNamesake(existing, owner)) return parse(account, existing);
      const fresh = this.build(account, { current: this.generate() }, owner);
      if (existing) {
        // Compare-and-swap: when another process replaced it first, the next attempt uses theirs.
        fresh.metadata = { ...fresh.metadata, resourceVersion: existing.metadata?.resourceVersion };
        const replaced = await replaceSecret(this.kube, fresh, this.namespace).catch((err: unknown) => {
          // The controller may not update Secrets (the chart's Role): the admin command replaces it.
          if (!isForbidden(err)) throw err;
          // Made before the install mark: another install given this namespace may have made it.
          const unmarked = existing.metadata?.annotations?.[INSTALL_NAMESPACE_ANNOTATION] === undefined;
          throw new Error(
            `the webhook Secret ${webhookSecretName(account)} was made for a deleted account named ${account}${unmarked ? ` (or, made before secrets named their install, for another genjobs install's ${account} in this namespace: then give each install its own webhooks.secretNamespace)` : ''} and is not this account's; \`genjobs accounts webhook-secret ${account}\` makes its own`,
            { cause: err },
          );
        });
        return parse(account, replaced);
      }
      try {
        return parse(account, await createSecret(this.kube, fresh, this.namespace));
      } catch (err) {
        // Another process created it first: use theirs, it may already have been shown to someone.
        if (!isAlreadyExists(err)) throw err;
        const raced = await this.get(account);
        if (!raced) throw err;
        return raced;
      }
    });
  }

  /** The secrets that sign a webhook sent now: current, and previous while its overlap lasts. */
  async signingSecrets(account: string, owner?: SecretOwner): Promise<string[]> {
    return inForce(await this.ensure(account, owner), this.now());
  }

  /**
   * Makes a new current secret; the old one becomes `previous` and keeps signing for
   * `overlapMs`, time to give receivers the new one. A rotation during an overlap drops the
   * older previous secret.
   */
  async rotate(
    account: string,
    overlapMs = DEFAULT_ROTATION_OVERLAP_MS,
    owner?: SecretOwner,
  ): Promise<AccountWebhookSecret> {
    return retryOnConflict(async () => {
      const secret = await this.read(account);
      if (!secret || ofNamesake(secret, owner)) return this.ensure(account, owner);
      const old = parse(account, secret);
      const until = new Date(this.now() + overlapMs).toISOString();
      const next = this.build(account, { current: this.generate(), previous: old.current }, owner, until);
      next.metadata = { ...secret.metadata, ...next.metadata };
      return parse(account, await replaceSecret(this.kube, next, this.namespace));
    });
  }

  private build(
    account: string,
    values: { current: string; previous?: string },
    owner?: SecretOwner,
    previousUntil?: string,
  ): Secret {
    return {
      type: 'Opaque',
      metadata: {
        name: webhookSecretName(account),
        labels: { 'app.kubernetes.io/managed-by': 'genjobs', 'genjobs.io/account': account },
        annotations: {
          [INSTALL_NAMESPACE_ANNOTATION]: this.kube.namespace,
          ...(owner?.uid ? { [ACCOUNT_UID_ANNOTATION]: owner.uid } : {}),
          ...(previousUntil ? { [PREVIOUS_UNTIL_ANNOTATION]: previousUntil } : {}),
        },
        // Owned by the Account, so deleting the Account deletes it; only in the Account's
        // namespace: an owner in another namespace counts as absent, and the garbage
        // collector would delete the Secret at once.
        ...(owner?.uid && this.namespace === this.kube.namespace
          ? {
              ownerReferences: [
                { apiVersion: API_VERSION, kind: 'Account', name: owner.name, uid: owner.uid },
              ],
            }
          : {}),
      },
      data: Object.fromEntries(
        Object.entries(values)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, Buffer.from(v as string).toString('base64')]),
      ),
    };
  }
}

/**
 * Whether the Secret was made for another Account of this name (deleted since): its uid, by
 * annotation or owner reference, is not the owner's. Unknown either way: not a namesake's.
 */
function ofNamesake(secret: Secret, owner: SecretOwner | undefined): boolean {
  const madeFor =
    secret.metadata?.annotations?.[ACCOUNT_UID_ANNOTATION] ??
    secret.metadata?.ownerReferences?.find((o) => o.kind === 'Account')?.uid;
  return madeFor !== undefined && owner?.uid !== undefined && madeFor !== owner.uid;
}

/** The secrets of `s` that sign at `now`. */
export function inForce(s: AccountWebhookSecret, now: number): string[] {
  const previousValid =
    s.previous !== undefined && (s.previousUntil === undefined || Date.parse(s.previousUntil) > now);
  return previousValid ? [s.current, s.previous as string] : [s.current];
}

function parse(account: string, secret: Secret): AccountWebhookSecret {
  const name = secret.metadata?.name ?? webhookSecretName(account);
  const read = (key: string): string | undefined => {
    const encoded = secret.data?.[key];
    if (encoded === undefined) return undefined;
    const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
    try {
      secretKey(value);
    } catch (err) {
      throw new Error(`Secret ${name}: data.${key} is not a webhook secret (${(err as Error).message})`);
    }
    return value;
  };
  const current = read('current');
  if (!current) throw new Error(`Secret ${name} has no data.current`);
  const previous = read('previous');
  const until = secret.metadata?.annotations?.[PREVIOUS_UNTIL_ANNOTATION];
  return {
    account,
    current,
    ...(previous ? { previous } : {}),
    ...(previous && until ? { previousUntil: until } : {}),
  };
}
