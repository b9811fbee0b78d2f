/**
 * Exact decimal arithmetic for prices. Multipliers such as 1.8 are not representable in
 * binary floating point (1.8 * 134000 is 241200.00000000003), so every factor is parsed
 * from its decimal text into an exact fraction of BigInts and rounding happens once, at
 * the end.
 */

/** A non-negative fraction `num / den`, `den > 0`. */
export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** Digits after the decimal point a price factor may carry. */
export const MAX_DECIMALS = 6;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export const ONE: Ratio = { num: 1n, den: 1n };

/**
 * Parses a non-negative decimal written as a number (`1.8`) or a string (`"1.8"`, `"8"`)
 * into an exact fraction. A number is read through its shortest round-trip text, which is
 * what the author wrote in YAML or JSON. Returns undefined for anything else (negative,
 * exponent notation, more than {@link MAX_DECIMALS} decimals, NaN, booleans).
 */
export function parseDecimal(value: unknown): Ratio | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > MAX_DECIMALS) return undefined;
  return { num: BigInt(match[1] + fraction), den: 10n ** BigInt(fraction.length) };
}

export function multiply(a: Ratio, b: Ratio): Ratio {
  return { num: a.num * b.num, den: a.den * b.den };
}

/** Rounds half up (…,5 goes away from zero) to a whole number; exact for any size. */
export function roundHalfUp(r: Ratio): bigint {
  return (2n * r.num + r.den) / (2n * r.den);
}

/** A rounded BigInt as a JS number; throws past 2^53 rather than losing precision. */
export function toSafeNumber(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${value} is out of the safe integer range`);
  return n;
}
