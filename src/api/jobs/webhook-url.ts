import { AppError } from '../../errors.ts';
import type { TargetPolicy } from '../../webhooks/address.ts';
import { targetRefusal } from '../../webhooks/deliver.ts';

/** A submit's webhookUrl, as the URL parser reads it: an absolute https:// URL that is not a refused target. */
export function checkWebhookUrl(url: string, policy: TargetPolicy): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (parsed?.protocol !== 'https:' || !parsed.hostname) {
    throw new AppError('INVALID_INPUT', 'webhookUrl must be an absolute https:// URL', {
      errors: [{ pointer: '/webhookUrl', message: 'must be an https:// URL' }],
    });
  }
  // A job's webhookUrl is stored as it is, shown by kubectl and sent on as Basic auth: a
  // password in it would be readable by every operator. Deliveries prove who sent them by
  // their signature.
  if (parsed.username || parsed.password) {
    throw new AppError(
      'INVALID_INPUT',
      'webhookUrl must not hold credentials (user:password@): the job would keep them in clear text; a receiver checks the webhook-signature header instead',
      { errors: [{ pointer: '/webhookUrl', message: 'must not hold a user name or password' }] },
    );
  }
  // Literal addresses are refused now; names are checked again on every delivery, at
  // connect time, against the address they then resolve to.
  const refused = targetRefusal(url, policy);
  if (refused) {
    throw new AppError('INVALID_INPUT', `webhookUrl is not an allowed target: ${refused}`, {
      errors: [{ pointer: '/webhookUrl', message: refused }],
    });
  }
  // As the URL parser reads it (HTTPS://Host → https://host/), which is what the job keeps:
  // the resource's schema takes a lower-case scheme only.
  if (parsed.href.length > 2048) {
    throw new AppError('INVALID_INPUT', 'webhookUrl is longer than 2048 characters', {
      errors: [{ pointer: '/webhookUrl', message: 'at most 2048 characters' }],
    });
  }
  return parsed.href;
}
