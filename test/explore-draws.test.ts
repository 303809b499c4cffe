// What the explorers draw reaches the edges the spec leaves open (conformance/explore/values.ts, draws.ts): references
// of up to 140 characters from every class, amounts of eight significant digits and more that travel exactly as
// decimal text and as JSON numbers, refund families whose exact rest binary floating point misjudges, and, where the
// run makes its payments, refunds moved on until finished and refunds in parts. Pure: fast-check samples, no target.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commandArbitraries,
  floatMisjudgesRest,
  refundFamilyArb,
  type CommandSource,
} from '../conformance/explore/draws.js';
import {
  amountPenceArb,
  amountText,
  LARGEST_AMOUNT_PENCE,
  LONG_REFERENCE,
  LONGEST_REFERENCE,
  referenceArb,
} from '../conformance/explore/values.js';
import { DEFAULT_PAYEE } from '../conformance/checks/server/requests.js';
import { decimalsEqual, parseDecimal } from '../src/rules/money.js';

const SAMPLES = { seed: 42, numRuns: 2_000 };

describe('references: up to 140 characters, every class a reference may hold', () => {
  const drawn = fc.sample(referenceArb, SAMPLES);

  it(`reaches ${LONG_REFERENCE} to ${LONGEST_REFERENCE} characters, and no further`, () => {
    expect(Math.max(...drawn.map((r) => r.length))).toBe(LONGEST_REFERENCE);
    expect(drawn.filter((r) => r.length >= LONG_REFERENCE).length).toBeGreaterThan(
      SAMPLES.numRuns / 8,
    );
  });

  it('letters, digits, space, punctuation, quotes, backslash and non-ASCII', () => {
    const all = drawn.join('');
    for (const c of ['A', 'z', '0', ' ', '-', '/', '&', "'", '"', '\\', 'é', '€', '中'])
      expect(all, c).toContain(c);
  });
});

describe('amounts: eight significant digits and more, exact as decimal text and as JSON numbers', () => {
  const drawn = fc.sample(fc.tuple(amountPenceArb, fc.integer({ min: 0, max: 2 })), SAMPLES);

  it('reaches past 1,000,000.00 to the largest amount, with pence', () => {
    const pence = drawn.map(([p]) => p);
    expect(Math.max(...pence)).toBeLessThanOrEqual(LARGEST_AMOUNT_PENCE);
    expect(pence.filter((p) => p > 100_000_000).length).toBeGreaterThan(SAMPLES.numRuns / 8);
    expect(pence.some((p) => p > 10_000_000_000 && p % 100 !== 0)).toBe(true);
  });

  it('the text is the amount, and a JSON number token of it reads back as the same decimal', () => {
    for (const [pence, decimals] of drawn) {
      const text = amountText(pence, decimals);
      const exact = parseDecimal(
        `${Math.floor(pence / 100)}.${String(pence % 100).padStart(2, '0')}`,
      );
      const asText = parseDecimal(text, { maxScale: 2 });
      const asNumber = parseDecimal(
        (JSON.parse(`{"amount":${text}}`) as { amount: number }).amount,
      );
      expect(asText.ok && exact.ok && decimalsEqual(asText.value, exact.value), text).toBe(true);
      expect(asNumber.ok && exact.ok && decimalsEqual(asNumber.value, exact.value), text).toBe(
        true,
      );
    }
  });
});

describe('refund families: the exact rest after partial refunds, where floats misjudge it', () => {
  it('0.20 after 0.10 of 0.30 is misjudged (0.1 + 0.2 > 0.3); 0.50 after 0.50 of 1.00 is not', () => {
    expect(floatMisjudgesRest(30, [10])).toBe(true);
    expect(floatMisjudgesRest(100, [50])).toBe(false);
    expect(floatMisjudgesRest(30, [30])).toBe(false); // nothing left
  });

  it('every family drawn leaves a rest and is misjudged; most are small payments', () => {
    const families = fc.sample(refundFamilyArb, { seed: 42, numRuns: 500 });
    for (const f of families) {
      const parts = f.partsPence.reduce((a, b) => a + b, 0);
      expect(f.partsPence.every((p) => p >= 1)).toBe(true);
      expect(parts).toBeLessThan(f.paymentPence);
      expect(floatMisjudgesRest(f.paymentPence, f.partsPence)).toBe(true);
    }
    expect(families.filter((f) => f.paymentPence <= 2_000).length).toBeGreaterThan(250);
    expect(families.some((f) => f.partsPence.length === 2)).toBe(true);
  });
});

describe('the quick lanes draw refunds of payments whose earlier refunds finished', () => {
  const source = (payments: CommandSource['payments']): CommandSource => ({
    destinations: [['FULL_MATCH', DEFAULT_PAYEE]],
    payments,
    unsettledPayments: 0,
  });
  const kinds = (payments: CommandSource['payments']): string[] => [
    ...new Set(
      commandArbitraries(source(payments), 'quick').flatMap((arb) =>
        fc.sample(arb, { seed: 1, numRuns: 20 }).map((c) => c.constructor.name),
      ),
    ),
  ];

  it('payments made for the run: refunds moved on, a refund after one finished, refunds in parts', () => {
    expect(kinds('made')).toEqual(
      expect.arrayContaining(['FinishRefunds', 'RefundAfterFinish', 'RefundInParts']),
    );
  });

  it("the config's payments (few, lent one at a time): refunds moved on, no more refunds drawn", () => {
    const config = kinds('config');
    expect(config).toContain('FinishRefunds');
    expect(config).not.toContain('RefundAfterFinish');
    expect(config).not.toContain('RefundInParts');
  });
});
