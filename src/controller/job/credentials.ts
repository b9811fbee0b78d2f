import type { Runtime } from '../../catalog/index.ts';
import type { Kube } from '../../k8s/client.ts';
import { isForbidden } from '../../k8s/errors.ts';
import { getSecret, type Secret } from '../../k8s/secrets.ts';

/**
 * The label a Secret must carry for a catalog's `authSecretRef` to name it. The catalog is
 * ConfigMaps, and the worker sends the named Secret to whatever URL the catalog gives: were
 * any Secret allowed, a catalog author could name the blob signing key or another
 * service's password and read it at their own server. Labelling a Secret opts it in.
 */
export const MODEL_CREDENTIALS_LABEL = 'genjobs.io/model-credentials';

/** Why a Secret may not serve as model credentials, or undefined when it may. */
export function credentialsRefusal(name: string, secret: Secret | undefined): string | undefined {
  if (!secret) return `Secret ${name} does not exist`;
  if (secret.metadata?.labels?.[MODEL_CREDENTIALS_LABEL] !== 'true')
    return `Secret ${name} is not labelled ${MODEL_CREDENTIALS_LABEL}: "true"`;
  return undefined;
}

/** Thrown before a worker Pod is created with a Secret that is not model credentials. */
export class CredentialsRefusedError extends Error {}

const VERDICT_TTL_MS = 30_000;

/**
 * Checks a runtime's `authSecretRef` before a worker Pod references it. The controller may
 * get only the Secrets the chart lists (worker.modelCredentialSecrets, by resourceNames);
 * any other name answers 403 and is refused like an unlabelled one. Verdicts are kept a
 * little while, so a busy model costs one read per half minute, not one per job.
 */
export class ModelCredentials {
  private readonly kube: Kube;
  private readonly now: () => number;
  private readonly verdicts = new Map<string, { refusal: string | undefined; at: number }>();

  constructor(kube: Kube, now: () => number = Date.now) {
    this.kube = kube;
    this.now = now;
  }

  /** Resolves when the runtime names no Secret or a labelled one; rejects with the reason otherwise. */
  async check(runtime: Runtime): Promise<void> {
    if (runtime.type !== 'http' || !runtime.authSecretRef) return;
    const { name } = runtime.authSecretRef;
    let verdict = this.verdicts.get(name);
    if (!verdict || this.now() - verdict.at > VERDICT_TTL_MS) {
      let refusal: string | undefined;
      try {
        refusal = credentialsRefusal(name, await getSecret(this.kube, name));
      } catch (err) {
        if (!isForbidden(err)) throw err;
        refusal = `Secret ${name} is not among the chart's worker.modelCredentialSecrets`;
      }
      verdict = { refusal, at: this.now() };
      this.verdicts.set(name, verdict);
    }
    if (verdict.refusal)
      throw new CredentialsRefusedError(`the model's authSecretRef is refused: ${verdict.refusal}`);
  }
}
