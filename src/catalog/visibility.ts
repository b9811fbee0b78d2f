/**
 * Who sees and who may use which model (spec 4.7 visibility levels).
 *
 * - public: everyone, including anonymous callers.
 * - segment: accounts whose `segments` share at least one name with the model's.
 * - private: accounts whose `allowedModels` names it.
 *
 * `allowedModels` entries are slugs in either form: `provider/name` grants every capability
 * variant of the model, `provider/name/capability` grants that variant only (a customer can
 * be given edit-image of a model without its video variant). An entry grants access whatever
 * the level, so an account can also be let into one segment model without joining the
 * segment. Because entries can name single variants, visibility is decided per variant; a
 * model is visible when at least one of its variants is.
 */
import { AppError } from '../errors.ts';
import type { AccountSpec } from '../k8s/types.ts';
import type { Catalog, Model, Variant } from './catalog.ts';

/** The part of an Account the catalog looks at (an Account satisfies it). */
export interface CatalogAccount {
  spec: Pick<AccountSpec, 'segments' | 'allowedModels' | 'discount'>;
}

/** Whether the caller (undefined: anonymous) sees the model or variant in the catalog. */
export function canSee(subject: Model | Variant, account: CatalogAccount | undefined): boolean {
  if ('model' in subject) return variantVisible(subject, account);
  return subject.variants.some((variant) => variantVisible(variant, account));
}

/**
 * Whether the account may run jobs on the variant. Today the same rule as seeing it; kept
 * apart so submit asks the question it means.
 */
export function canUse(variant: Variant, account: CatalogAccount): boolean {
  return variantVisible(variant, account);
}

/**
 * The variant a submit or estimate names, if the account may use it. A job names a
 * capability variant, `<provider>/<model>/<capability>` (spec 4.1): a model's two-part slug
 * names none, whatever the catalog's default, so a job never runs as a variant its caller
 * did not choose (an edit sent to a model whose default is text-to-image would run as that).
 *
 * Which error, on purpose: an unknown slug and a segment model outside the account's
 * segments are MODEL_NOT_FOUND (404): a segment model is a staged rollout whose existence is
 * not acknowledged outside it ("does not exist or is unavailable", spec 7). A private model
 * not granted to the account is MODEL_ACCESS_DENIED (403, spec 5 rule 2): its slug is handed
 * out to customers who are then granted access, and "ask for access" is the useful answer.
 * A slug of a model the account can use that names no variant of it says which it has.
 * @throws AppError MODEL_NOT_FOUND or MODEL_ACCESS_DENIED.
 */
export function resolveForSubmit(catalog: Catalog, slug: string, account: CatalogAccount): Variant {
  const parts = slug.split('/');
  const variant = parts.length === 3 ? catalog.variantsBySlug.get(slug) : undefined;
  if (variant && canUse(variant, account)) return variant;
  const model = variant?.model ?? catalog.modelsBySlug.get(parts.slice(0, 2).join('/'));
  const usable = model?.variants.filter((v) => canUse(v, account)) ?? [];
  if (
    variant?.model.spec.visibility === 'private' ||
    (model?.spec.visibility === 'private' && !usable.length)
  ) {
    throw new AppError('MODEL_ACCESS_DENIED', `this API key's account has no access to model ${slug}`, {
      errors: [{ pointer: '/model', message: 'no access to this model' }],
    });
  }
  if (model && usable.length > 0) {
    const choices = usable.map((v) => v.slug).join(', ');
    throw new AppError(
      'MODEL_NOT_FOUND',
      parts.length === 2
        ? `${slug} is a model; name one of its capability variants: ${choices}`
        : `model ${model.slug} has no variant ${slug}; its variants: ${choices}`,
      { errors: [{ pointer: '/model', message: `name a capability variant: ${choices}` }] },
    );
  }
  throw new AppError('MODEL_NOT_FOUND', `model ${slug} does not exist or is unavailable`, {
    errors: [{ pointer: '/model', message: 'unknown model' }],
  });
}

function variantVisible(variant: Variant, account: CatalogAccount | undefined): boolean {
  const { visibility, segments } = variant.model.spec;
  if (visibility === 'public') return true;
  if (!account) return false;
  const allowed = account.spec.allowedModels;
  if (allowed && (allowed.includes(variant.model.slug) || allowed.includes(variant.slug))) return true;
  if (visibility === 'segment') {
    const mine = account.spec.segments;
    return mine !== undefined && (segments ?? []).some((segment) => mine.includes(segment));
  }
  return false;
}
