import { addOperations, component } from '../openapi.ts';
import { AccountSummary } from './schemas.ts';

// Registered once, when the account routes are first loaded.
addOperations([
  {
    method: 'get',
    path: '/v1/account',
    operationId: 'getAccount',
    summary: "The key's account: its balance, credit held, spend and plan (not in the spec)",
    description:
      "Any valid key of the account may read it. The figures are the ledger's as this api replica last saw them (milliseconds behind a write); credit leased for submits of the last few seconds counts as held until its unused part returns.",
    security: 'bearer',
    responses: { 200: component('Account', AccountSummary) },
    errors: [401, 503],
  },
]);
