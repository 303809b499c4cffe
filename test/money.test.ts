// Proves amounts are exact decimals: parsed from JSON numbers and decimal strings, compared and added without
// binary floating point (0.1 + 0.2 is 0.3), formatted back, and hostile amounts refused with a typed result.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PayconformError } from '../src/errors.js';
import {
  addDecimals,
  compareDecimals,
  decimalToNumber,
  decimalsEqual,
  formatDecimal,
  normalizeDecimal,
  parseDecimal,
  subtractDecimals,
  sumDecimals,
  toDecimal,
  type Decimal,
} from '../src/rules/money.js';

const d = (x: number | string): Decimal => toDecimal(x);

describe('parseDecimal', () => {
  it.each([
    ['10.50', '1050', 2],
    ['0.1', '1', 1],
    ['7', '7', 0],
    ['007.5', '75', 1],
    [10.5, '105', 1],
    [0.1, '1', 1],
    [100, '100', 0],
    [1e-7, '1', 7],
    [1.5e-7, '15', 8],
    [1e21, (10n ** 21n).toString(), 0],
    [-0, '0', 0],
  ] as const)('%j → units %s, scale %i', (input, units, scale) => {
    expect(parseDecimal(input)).toEqual({ ok: true, value: { units: BigInt(units), scale } });
  });

  it.each([
    '1e5',
    '+1',
    ' 1',
    '1 ',
    '1,000.00',
    '.5',
    '5.',
    '',
    '-',
    '0x10',
    'NaN',
    'Infinity',
    '١٢',
    '1_000',
  ])('string %j is refused with DECIMAL_INVALID', (input) => {
    expect(parseDecimal(input)).toMatchObject({ ok: false, code: 'DECIMAL_INVALID' });
  });

  it.each([
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    null,
    undefined,
    true,
    {},
    [1],
  ])('%s is refused', (input) => {
    expect(parseDecimal(input)).toMatchObject({ ok: false, code: 'DECIMAL_INVALID' });
  });

  it('a bigint is refused (amounts arrive as JSON numbers or strings)', () => {
    expect(parseDecimal(10n)).toMatchObject({ ok: false, code: 'DECIMAL_INVALID' });
  });

  it('negative amounts only with allowNegative; maxScale limits fractional digits', () => {
    expect(parseDecimal('-1.5')).toMatchObject({
      ok: false,
      message: expect.stringContaining('negative'),
    });
    expect(parseDecimal('-1.5', { allowNegative: true })).toEqual({
      ok: true,
      value: { units: -15n, scale: 1 },
    });
    expect(parseDecimal('1.005', { maxScale: 2 })).toMatchObject({
      ok: false,
      message: expect.stringContaining('2 fractional digits'),
    });
    expect(parseDecimal('1.00', { maxScale: 2 }).ok).toBe(true);
  });

  it('hostile length is refused quickly', () => {
    expect(parseDecimal('9'.repeat(1_000_000))).toMatchObject({
      ok: false,
      code: 'DECIMAL_INVALID',
    });
    expect(parseDecimal(`0.${'1'.repeat(38)}`)).toMatchObject({ ok: false });
    expect(parseDecimal(`0.${'1'.repeat(37)}`)).toMatchObject({ ok: true });
  });

  it('toDecimal throws PayconformError DECIMAL_INVALID', () => {
    expect(() => toDecimal('abc')).toThrow(PayconformError);
    try {
      toDecimal('abc');
    } catch (error) {
      expect((error as PayconformError).code).toBe('DECIMAL_INVALID');
    }
  });
});

describe('arithmetic without binary floating point', () => {
  it('0.1 + 0.2 equals 0.3 (as numbers and as strings)', () => {
    expect(0.1 + 0.2 === 0.3).toBe(false); // the trap this module exists for
    expect(decimalsEqual(addDecimals(d(0.1), d(0.2)), d(0.3))).toBe(true);
    expect(decimalsEqual(addDecimals(d('0.1'), d('0.2')), d('0.30'))).toBe(true);
  });

  it('10.5 equals 10.50; comparison across scales', () => {
    expect(compareDecimals(d('10.5'), d('10.50'))).toBe(0);
    expect(compareDecimals(d('10.49'), d('10.5'))).toBe(-1);
    expect(compareDecimals(d('2'), d('1.999'))).toBe(1);
  });

  it('ten refunds of 0.1 exactly use up a payment of 1.00', () => {
    const total = sumDecimals(Array.from({ length: 10 }, () => d(0.1)));
    expect(compareDecimals(total, d('1.00'))).toBe(0);
    expect(formatDecimal(subtractDecimals(d('1.00'), total), { minScale: 2 })).toBe('0.00');
  });

  const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
  it('property: addition and comparison agree with integer arithmetic on cents', () => {
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const x: Decimal = { units: a, scale: 2 };
        const y: Decimal = { units: b * 10n, scale: 3 };
        expect(addDecimals(x, y)).toEqual({ units: a * 10n + b * 10n, scale: 3 });
        expect(compareDecimals(x, y)).toBe(a < b ? -1 : a > b ? 1 : 0);
        expect(decimalsEqual(subtractDecimals(addDecimals(x, y), y), x)).toBe(true);
      }),
    );
  });

  it('property: format then parse is the identity; numbers with ≤15 significant digits round-trip', () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 0, max: 6 }), (units, scale) => {
        const value: Decimal = { units, scale };
        expect(parseDecimal(formatDecimal(value), { allowNegative: true })).toEqual({
          ok: true,
          value,
        });
      }),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.integer({ min: 0, max: 8 }),
        (units, scale) => {
          const text = formatDecimal({ units, scale });
          const fromNumber = toDecimal(Number(text));
          expect(decimalsEqual(fromNumber, { units, scale })).toBe(true);
        },
      ),
    );
  });
});

describe('formatting for responses', () => {
  it.each([
    ['1050', 2, 0, '10.50'],
    ['105', 1, 2, '10.50'],
    ['5', 3, 0, '0.005'],
    ['-5', 3, 2, '-0.005'],
    ['7', 0, 2, '7.00'],
    ['0', 0, 0, '0'],
  ] as const)('units %s scale %i with minScale %i → %s', (units, scale, minScale, text) => {
    expect(formatDecimal({ units: BigInt(units), scale }, { minScale })).toBe(text);
  });

  it('normalizeDecimal drops trailing zeros; decimalToNumber gives the JSON number', () => {
    expect(normalizeDecimal({ units: 10500n, scale: 3 })).toEqual({ units: 105n, scale: 1 });
    expect(normalizeDecimal({ units: 300n, scale: 2 })).toEqual({ units: 3n, scale: 0 });
    expect(decimalToNumber(d('10.50'))).toBe(10.5);
    expect(JSON.stringify({ amount: decimalToNumber(addDecimals(d(0.1), d(0.2))) })).toBe(
      '{"amount":0.3}',
    );
  });
});
