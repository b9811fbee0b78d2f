import { Router } from 'express';
import type { Account } from '../../k8s/types.ts';
import { normalized } from '../../ledger/ops.ts';
import type { Authenticator } from '../auth.ts';
import { locals } from '../request.ts';
import './openapi.ts';
import type { AccountSummary } from './schemas.ts';

/**
 * GET /v1/account, from the account the key was authenticated with (the api's cache of
 * Accounts, no apiserver call). Any valid key of the account: it changes nothing.
 */
export function accountRoutes(auth: Authenticator, plans: Readonly<Record<string, number>>): Router {
  const r = Router();
  r.get('/v1/account', auth.require(undefined), (_req, res) => {
    locals(res).route = '/v1/account';
    res.json(accountSummary(locals(res).principal!.account, plans));
  });
  return r;
}

/** The account's figures as the ledger reads them: a grant the controller has not applied yet counts. */
export function accountSummary(account: Account, plans: Readonly<Record<string, number>>): AccountSummary {
  const s = normalized(account);
  return {
    account: account.metadata.name ?? '',
    plan: account.spec.plan,
    maxConcurrentJobs: plans[account.spec.plan] ?? 0,
    balanceMicroCents: s.balanceMicroCents,
    heldMicroCents: s.heldMicroCents,
    spentMicroCents: s.spentMicroCents,
  };
}
