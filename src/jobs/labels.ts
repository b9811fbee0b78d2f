/** A model slug as a label value (slashes are not allowed in label values). */
export function labelValue(slug: string): string {
  return slug.replaceAll('/', '.').slice(0, 63);
}

export const ACCOUNT_LABEL = 'genjobs.io/account';
export const MODEL_LABEL = 'genjobs.io/model';
/**
 * When the api accepted a job, to the millisecond (an annotation): creationTimestamp has
 * whole seconds, and jobs submitted in one second must still start in the order they came.
 */
export const SUBMITTED_AT_ANNOTATION = 'genjobs.io/submitted-at';
