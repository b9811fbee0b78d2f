import { z } from 'zod';

/** GET /v1/account: not in the spec; what an app needs to know before it submits. */
export const AccountSummary = z
  .object({
    account: z.string().describe('The account the key belongs to'),
    plan: z.string(),
    maxConcurrentJobs: z
      .number()
      .int()
      .nonnegative()
      .describe("The plan's jobs pending or processing at once"),
    balanceMicroCents: z
      .number()
      .int()
      .describe(
        'Credit for new jobs, in micro-cents (1,000,000 = $1): granted, less what completed jobs cost and what is held',
      ),
    heldMicroCents: z
      .number()
      .int()
      .nonnegative()
      .describe(
        'Credit set aside for unfinished jobs and for submits of the last seconds; a refund or the unused part returns to the balance',
      ),
    spentMicroCents: z.number().int().nonnegative().describe('Charged for completed jobs, in total'),
  })
  .meta({
    examples: [
      {
        account: 'acme',
        plan: 'pro',
        maxConcurrentJobs: 20,
        balanceMicroCents: 97_466_000,
        heldMicroCents: 2_400_000,
        spentMicroCents: 134_000,
      },
    ],
  });
export type AccountSummary = z.infer<typeof AccountSummary>;
