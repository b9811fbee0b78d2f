/** A model slug as a label value (slashes are not allowed in label values). */
export function labelValue(slug: string): string {
  return slug.replaceAll('/', '.').slice(0, 63);
}

export const ACCOUNT_LABEL = 'genjobs.io/account';
export const MODEL_LABEL = 'genjobs.io/model';
