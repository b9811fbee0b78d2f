/**
 * The one pricing function. Catalog listings, estimate and submit all call it (or
 * {@link applyDiscount} for a bare base price), so a price shown is the price charged.
 *
 * cost = baseCredits × (unit per_second: seconds) × Π multipliers[field][String(value)]
 * computed as an exact fraction and rounded half up once; the account discount is applied
 * to that exact amount and rounded half up once more (never to an already-rounded figure).
 */

import { AppError } from '../errors.ts';
import type { Discount } from '../k8s/types.ts';
import { MAX_GRANT_MICRO_CENTS } from '../ledger/limits.ts';
import type { Variant } from './catalog.ts';
import { multiply, parseDecimal, type Ratio, roundHalfUp, toSafeNumber } from './decimal.ts';
import { inputPointer } from './input.ts';

/** One line of an estimate. Lines add up exactly to estimatedCostMicroCents. */
export interface CostComponent {
  component: string;
  costMicroCents: number;
}

/** The cost estimate of spec 2.3; also what submit charges (estimatedCostMicroCents). */
export interface CostEstimate {
  baseCostMicroCents: number;
  estimatedCostMicroCents: number;
  breakdown: CostComponent[];
  hasDiscount: boolean;
  discounted?: { type: string; percentage: number; savedMicroCents: number };
}

/** What pricing needs of a variant; fixtures can build just this. */
export type PricedVariant = Pick<Variant, 'pricing' | 'inputSchema'>;

/**
 * Prices one job. `input` may be raw (as the client sent it: `duration` "8" or 8,
 * `has_sound` "true" or true) or already prepared; fields it lacks take the inputSchema's
 * default, and a multiplier field with neither value nor default counts as factor 1.
 *
 * Breakdown: `base` (baseCredits, times the seconds for per_second), one `field=value`
 * line per multiplier (the amount it adds, possibly 0), and `discount` (negative) when a
 * discount applies. Each line is the difference of consecutive rounded running totals, so
 * the lines add up exactly to the final amount.
 *
 * @throws AppError INVALID_INPUT when a priced field has a value with no price.
 */
export function price(
  variant: PricedVariant,
  input: Record<string, unknown> = {},
  discount?: Discount,
): CostEstimate {
  const { pricing } = variant;
  let exact: Ratio = { num: BigInt(pricing.baseCredits), den: 1n };
  if (pricing.perSecond) {
    const field = pricing.perSecond.field;
    const seconds = parseDecimal(fieldValue(variant, input, field));
    if (seconds === undefined || seconds.num === 0n) {
      throw invalid(field, 'must be a positive number of seconds');
    }
    exact = multiply(exact, seconds);
  }
  let running = payable(roundHalfUp(exact), pricing.perSecond?.field);
  const breakdown: CostComponent[] = [{ component: 'base', costMicroCents: toSafeNumber(running) }];
  for (const [field, table] of Object.entries(pricing.multipliers)) {
    const value = fieldValue(variant, input, field);
    if (value === undefined) continue;
    const key = String(value);
    const factor = Object.hasOwn(table, key) ? parseDecimal(table[key]) : undefined;
    if (factor === undefined) {
      throw invalid(
        field,
        `no price for ${JSON.stringify(value)}; priced values: ${Object.keys(table).join(', ')}`,
      );
    }
    exact = multiply(exact, factor);
    const next = payable(roundHalfUp(exact), field);
    breakdown.push({ component: `${field}=${key}`, costMicroCents: toSafeNumber(next - running) });
    running = next;
  }
  const base = toSafeNumber(running);
  const percentage = discountPercentage(discount);
  if (!discount || percentage === undefined) {
    return { baseCostMicroCents: base, estimatedCostMicroCents: base, breakdown, hasDiscount: false };
  }
  const final = toSafeNumber(roundHalfUp(multiply(exact, remainder(percentage))));
  breakdown.push({ component: 'discount', costMicroCents: final - base });
  return {
    baseCostMicroCents: base,
    estimatedCostMicroCents: final,
    breakdown,
    hasDiscount: true,
    discounted: { type: discount.type, percentage: discount.percentage, savedMicroCents: base - final },
  };
}

/** A bare amount (a list's baseCredits) after the discount, rounded the same way as {@link price}. */
export function applyDiscount(amountMicroCents: number, discount?: Discount): number {
  const percentage = discountPercentage(discount);
  if (percentage === undefined) return amountMicroCents;
  return toSafeNumber(
    roundHalfUp(multiply({ num: BigInt(amountMicroCents), den: 1n }, remainder(percentage))),
  );
}

/** Whether a discount changes any price (absent and 0 % do not). */
export function hasDiscount(discount?: Discount): boolean {
  return discountPercentage(discount) !== undefined;
}

function fieldValue(variant: PricedVariant, input: Record<string, unknown>, field: string): unknown {
  const { properties } = variant.inputSchema;
  return input[field] ?? (Object.hasOwn(properties, field) ? properties[field]?.default : undefined);
}

/** The percentage as an exact fraction, or undefined when it takes nothing off. */
function discountPercentage(discount?: Discount): Ratio | undefined {
  if (!discount) return undefined;
  const percentage = parseDecimal(discount.percentage);
  // The Account CRD bounds the percentage; reaching here with garbage is a bug to surface, not to price around.
  if (percentage === undefined || percentage.num > 100n * percentage.den) {
    throw new RangeError(`discount percentage ${discount.percentage} is not within 0..100`);
  }
  return percentage.num === 0n ? undefined : percentage;
}

/** (100 − p) / 100 */
function remainder(percentage: Ratio): Ratio {
  return { num: 100n * percentage.den - percentage.num, den: 100n * percentage.den };
}

/**
 * An amount no account could pay (past the most one may hold) is the input's fault, a 422
 * naming the field that took it there, never an arithmetic error (a 500).
 */
function payable(amount: bigint, field: string | undefined): bigint {
  if (amount <= BigInt(MAX_GRANT_MICRO_CENTS)) return amount;
  const message = `prices the job at ${amount} micro-cents, more than an account can hold (${MAX_GRANT_MICRO_CENTS})`;
  if (field === undefined) throw new AppError('INVALID_INPUT', `the model's base price ${message}`);
  throw invalid(field, message);
}

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_INPUT', `input.${field} ${message}`, {
    errors: [{ pointer: inputPointer(field), message }],
  });
}
