// Amounts at the service edge: parsed exactly by src/rules/money.ts and kept as canonical two-place decimal text.
import { formatDecimal, isPositive, parseDecimal } from '../src/rules/index.js';

/** A JSON number or decimal string → "10.50"-style text; undefined unless a positive amount with at most two decimals. */
export function positiveAmount(value: unknown): string | undefined {
  const parsed = parseDecimal(value, { maxScale: 2 });
  if (!parsed.ok || !isPositive(parsed.value)) return undefined;
  return formatDecimal(parsed.value, { minScale: 2 });
}
