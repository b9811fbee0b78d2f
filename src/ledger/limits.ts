/**
 * The most credit an account may hold (its total grant), in micro-cents: $1,000,000,000.
 * A job priced above it could never be paid for, so no input may price one so high either.
 */
export const MAX_GRANT_MICRO_CENTS = 1_000_000_000_000_000;
