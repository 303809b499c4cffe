// The values both explorers draw (the server explorer's payouts and payments, the SDK explorer's operations): payment
// references and amounts, out to the edges the spec leaves open. Resources give a reference only as a string (no
// length, no character set) and an amount as a decimal number; "payout amount bounds ... not shown" (Limits).
import fc from 'fast-check';

/** References at least this long count as long in the summaries (the spec states no maximum). */
export const LONG_REFERENCE = 100;
/** The longest reference drawn. */
export const LONGEST_REFERENCE = 140;

/** Every class of character a reference may hold: letters, digits, space, punctuation, quotes, backslash, non-ASCII. */
const referenceChar = fc.constantFrom(...'AbZz09 -/.,&#_:;()+\'"\\é€ßØ中'.split(''));

/**
 * A reference: mostly short (1 to 30 letters, digits, spaces and `- / . , & #`), one in four of `LONG_REFERENCE` to
 * `LONGEST_REFERENCE` characters from every class of `referenceChar`.
 */
export const referenceArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9 \-/.,&#]{1,30}$/), weight: 3 },
  {
    arbitrary: fc.string({
      unit: referenceChar,
      minLength: LONG_REFERENCE,
      maxLength: LONGEST_REFERENCE,
    }),
    weight: 1,
  },
);

/**
 * The largest amount drawn, in pence: 10,000,000,000.00 (13 significant digits). A JSON number of up to 15
 * significant digits reads back as the text written (`parseDecimal` in src/rules/money.ts), so every amount drawn
 * travels exactly as a number token as well as decimal text.
 */
export const LARGEST_AMOUNT_PENCE = 1_000_000_000_000;

/**
 * An amount in pence: up to 999.99 (three in twelve), 1,000.00 to 9,999.99 (two), 10,000.00 to 1,000,000.00
 * (three), and on to 100,000,000.00 and to 10,000,000,000.00 (two each): eight significant digits and more.
 */
export const amountPenceArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 99_999 }) },
  { weight: 2, arbitrary: fc.integer({ min: 100_000, max: 999_999 }) },
  { weight: 3, arbitrary: fc.integer({ min: 1_000_000, max: 100_000_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 100_000_001, max: 10_000_000_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 10_000_000_001, max: LARGEST_AMOUNT_PENCE }) },
);

/** `pence` as decimal text with two decimals: 1050 → "10.50" (integer arithmetic, no float). */
export function penceText(pence: number | bigint): string {
  const p = BigInt(pence);
  return `${p / 100n}.${String(p % 100n).padStart(2, '0')}`;
}

/**
 * `pence` as decimal text with `decimals` (0, 1 or 2) where the value allows it: 1050 with 1 → "10.5", with 0 →
 * "10.50" (the exact value needs its decimals).
 */
export function amountText(pence: number, decimals: number): string {
  const text = penceText(pence);
  const [whole, frac = '00'] = text.split('.');
  if (decimals === 2 || (decimals === 1 && frac[1] !== '0') || (decimals === 0 && frac !== '00'))
    return text;
  return decimals === 0 ? `${whole}` : `${whole}.${frac[0]}`;
}
