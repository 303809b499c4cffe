// Decimal money as a scaled BigInt (value = units × 10^-scale): amounts are parsed from JSON numbers or decimal
// strings, compared and added exactly, and never pass through binary floating-point arithmetic.
import { PayconformError } from '../errors.js';

/** An exact decimal: `units × 10^-scale`, scale ≥ 0. Not normalised: 10.50 is { units: 1050n, scale: 2 }. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** What an amount may arrive as: a JSON number, a decimal string, or an already parsed Decimal. */
export type DecimalInput = number | string | Decimal;

export interface ParseDecimalOptions {
  /** Accept a leading minus sign (default false: money amounts in this service are not negative). */
  readonly allowNegative?: boolean;
  /** Most fractional digits accepted (default: no limit up to the digit cap). */
  readonly maxScale?: number;
}

export type DecimalResult =
  | { readonly ok: true; readonly value: Decimal }
  | { readonly ok: false; readonly code: 'DECIMAL_INVALID'; readonly message: string };

/** Longest digit string accepted (integer and fraction digits together): bounds the work on hostile input. */
export const MAX_DECIMAL_DIGITS = 38;

const DECIMAL_TEXT = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

function invalid(message: string): DecimalResult {
  return { ok: false, code: 'DECIMAL_INVALID', message };
}

function isDecimal(value: unknown): value is Decimal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Decimal).units === 'bigint' &&
    Number.isSafeInteger((value as Decimal).scale) &&
    (value as Decimal).scale >= 0
  );
}

/**
 * Parses an amount. A string must be plain decimal text: optional '-', digits, optional '.' and digits (no exponent,
 * no '+', no spaces, no thousands separators). A JSON number is taken as the shortest decimal text that reads back as
 * the same double (JavaScript's `String(n)`), which is the text the sender wrote for any amount of up to 15
 * significant digits; exponent forms such as 1e-7 are expanded exactly. NaN and ±Infinity are refused.
 */
export function parseDecimal(input: unknown, options: ParseDecimalOptions = {}): DecimalResult {
  let text: string;
  if (isDecimal(input)) {
    text = formatDecimal(input);
  } else if (typeof input === 'number') {
    if (!Number.isFinite(input))
      return invalid(`amount must be a finite number, got ${String(input)}`);
    text = numberToPlainText(input);
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return invalid(
      `amount must be a number or a decimal string, got ${input === null ? 'null' : typeof input}`,
    );
  }
  if (text.length > MAX_DECIMAL_DIGITS + 2)
    return invalid(`amount has more than ${MAX_DECIMAL_DIGITS} digits`);
  const match = DECIMAL_TEXT.exec(text);
  if (!match)
    return invalid(
      `amount ${JSON.stringify(text)} is not a plain decimal (digits, optionally '.' and digits)`,
    );
  const [, sign = '', whole = '', fraction = ''] = match;
  if (whole.length + fraction.length > MAX_DECIMAL_DIGITS)
    return invalid(`amount has more than ${MAX_DECIMAL_DIGITS} digits`);
  const units = BigInt(`${whole}${fraction}`) * (sign === '-' ? -1n : 1n);
  if (units < 0n && options.allowNegative !== true)
    return invalid(`amount ${JSON.stringify(text)} must not be negative`);
  if (options.maxScale !== undefined && fraction.length > options.maxScale) {
    return invalid(
      `amount ${JSON.stringify(text)} has more than ${options.maxScale} fractional digits`,
    );
  }
  return { ok: true, value: { units, scale: fraction.length } };
}

/** Parses an amount the caller vouches for; throws PayconformError DECIMAL_INVALID otherwise. */
export function toDecimal(input: DecimalInput, options: ParseDecimalOptions = {}): Decimal {
  const result = parseDecimal(input, { allowNegative: true, ...options });
  if (!result.ok) throw new PayconformError(result.code, result.message);
  return result.value;
}

/** Writes a double as plain decimal text (no exponent), exactly as `String(n)` reads it. */
function numberToPlainText(n: number): string {
  const text = String(Object.is(n, -0) ? 0 : n);
  const exp = /^(-?)([0-9])(?:\.([0-9]+))?e([+-][0-9]+)$/.exec(text);
  if (!exp) return text;
  const [, sign = '', lead = '', rest = '', power = '0'] = exp;
  const digits = `${lead}${rest}`;
  const point = 1 + Number(power); // position of the decimal point within `digits`
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function rescale(d: Decimal, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

/** -1, 0 or 1 as a is less than, equal to or greater than b (10.5 equals 10.50). */
export function compareDecimals(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function decimalsEqual(a: Decimal, b: Decimal): boolean {
  return compareDecimals(a, b) === 0;
}

export function addDecimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function subtractDecimals(a: Decimal, b: Decimal): Decimal {
  return addDecimals(a, { units: -b.units, scale: b.scale });
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

export function sumDecimals(values: Iterable<Decimal>): Decimal {
  let total = ZERO;
  for (const v of values) total = addDecimals(total, v);
  return total;
}

export function isPositive(d: Decimal): boolean {
  return d.units > 0n;
}

/** Removes trailing fractional zeros: 10.500 → 10.5, 3.00 → 3. */
export function normalizeDecimal(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

/**
 * Decimal text of an amount, with at least `minScale` fractional digits (formatDecimal(x, { minScale: 2 }) gives
 * "10.50"). Trailing zeros beyond minScale are kept as the value carries them; normalise first to drop them.
 */
export function formatDecimal(d: Decimal, options: { readonly minScale?: number } = {}): string {
  const minScale = options.minScale ?? 0;
  const scale = Math.max(d.scale, minScale);
  const units = rescale(d, scale);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/**
 * The amount as a JavaScript number for a JSON response whose field the spec types as a number. Exact for amounts
 * of up to 15 significant digits; JSON.stringify then writes the shortest text (10.50 is written 10.5).
 */
export function decimalToNumber(d: Decimal): number {
  return Number(formatDecimal(d));
}
