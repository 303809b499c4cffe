// Proves the business rules of the spec's States and transitions and Limits: the payout initial status table
// (null included), commit and cancel only from AWAITING_COMMIT, the webhook status list, refund eligibility and the
// refund destination.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cancelPayout,
  checkRefund,
  commitPayout,
  compareDecimals,
  copStatuses,
  formatDecimal,
  initialPayoutStatus,
  isOriginalPayerAccount,
  accountDifferences,
  PAYOUT_CANCEL_STATUS_REASON,
  payoutStatuses,
  payoutWebhookStatuses,
  refundDestinationFromPayer,
  refundRefusalStatus,
  sumDecimals,
  toDecimal,
  type CopStatus,
} from '../src/rules/index.js';
import {
  paymentStatuses,
  refundStatuses,
  type Payout,
  type PaymentRefundData,
} from '../src/schemas/index.js';

const allCop: readonly (CopStatus | null)[] = [...copStatuses, null];

describe('spec: Payout transitions, rows from "(none)": initial status', () => {
  // The spec's table, written out row by row.
  const table: readonly (readonly [
    boolean | undefined,
    CopStatus | null,
    'IN_PROGRESS' | 'AWAITING_COMMIT',
  ])[] = [
    ...allCop.flatMap(
      (cop) =>
        [
          [undefined, cop, 'IN_PROGRESS'],
          [false, cop, 'IN_PROGRESS'],
        ] as const,
    ),
    [true, 'FULL_MATCH', 'IN_PROGRESS'],
    [true, 'NOT_CHECKED', 'IN_PROGRESS'],
    [true, null, 'IN_PROGRESS'],
    [true, 'PARTIAL_MATCH', 'AWAITING_COMMIT'],
    [true, 'NO_MATCH', 'AWAITING_COMMIT'],
    [true, 'UNABLE_TO_MATCH', 'AWAITING_COMMIT'],
    [true, 'UNKNOWN', 'AWAITING_COMMIT'],
  ];
  it('the table covers every copStatus (and null) for omitted, false and true', () => {
    expect(table).toHaveLength(21);
  });
  it.each(table)('doNotCommitOnCoPMismatch %s, copStatus %s → %s', (flag, copStatus, expected) => {
    expect(
      initialPayoutStatus(
        flag === undefined ? { copStatus } : { doNotCommitOnCoPMismatch: flag, copStatus },
      ),
    ).toBe(expected);
  });
  it('a copStatus outside the list is held when holding was asked for (fail-safe, like UNKNOWN)', () => {
    expect(
      initialPayoutStatus({
        doNotCommitOnCoPMismatch: true,
        copStatus: 'SOMETHING_NEW' as CopStatus,
      }),
    ).toBe('AWAITING_COMMIT');
    expect(
      initialPayoutStatus({
        doNotCommitOnCoPMismatch: false,
        copStatus: 'SOMETHING_NEW' as CopStatus,
      }),
    ).toBe('IN_PROGRESS');
  });
  it('property: without doNotCommitOnCoPMismatch true the payout is never held', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(undefined, false),
        fc.constantFrom(...allCop),
        (flag, copStatus) => {
          expect(initialPayoutStatus({ doNotCommitOnCoPMismatch: flag, copStatus })).toBe(
            'IN_PROGRESS',
          );
        },
      ),
    );
  });
});

const basePayout: Payout = {
  applicationId: '6f1c2b3a-4d5e-4f60-8a71-92b3c4d5e6f7',
  payoutId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  createdAt: '2024-05-01T12:30:45.123Z',
  status: 'AWAITING_COMMIT',
  amount: 10.5,
  reference: 'INV-1',
  currency: 'GBP',
  source: {
    type: 'SCAN',
    name: 'Acme Ltd',
    accountNumber: '12345678',
    sortCode: '040004',
    iban: null,
    bic: null,
  },
  destination: {
    type: 'SCAN',
    name: 'Jane Doe',
    accountNumber: '87654321',
    sortCode: '200000',
    iban: null,
    bic: null,
  },
  tracingId: 'abc123',
  copStatus: 'PARTIAL_MATCH',
  statusReason: null,
};

describe('spec: Payout transitions from AWAITING_COMMIT: commit and cancel', () => {
  it('property: commit gives IN_PROGRESS and keeps copStatus and every other field', () => {
    fc.assert(
      fc.property(fc.constantFrom(...allCop), (copStatus) => {
        const result = commitPayout({ ...basePayout, copStatus });
        expect(result).toEqual({
          ok: true,
          payout: { ...basePayout, copStatus, status: 'IN_PROGRESS' },
        });
      }),
    );
  });
  it('cancel gives CANCELLED with a statusReason saying the merchant cancelled and the amount was released', () => {
    const result = cancelPayout(basePayout);
    expect(result).toEqual({
      ok: true,
      payout: { ...basePayout, status: 'CANCELLED', statusReason: PAYOUT_CANCEL_STATUS_REASON },
    });
    expect(PAYOUT_CANCEL_STATUS_REASON).toMatch(/cancelled by the merchant/);
    expect(PAYOUT_CANCEL_STATUS_REASON).toMatch(/amount was released/);
  });
  it.each(payoutStatuses.filter((s) => s !== 'AWAITING_COMMIT'))(
    'from %s, commit and cancel are refused with PAYOUT_NOT_AWAITING_COMMIT',
    (status) => {
      for (const action of [commitPayout, cancelPayout]) {
        const result = action({ ...basePayout, status });
        expect(result).toMatchObject({ ok: false, code: 'PAYOUT_NOT_AWAITING_COMMIT', status });
        if (!result.ok) expect(result.message).toContain(`"${status}"`);
      }
    },
  );
  it('the input payout is not modified', () => {
    const input = { ...basePayout };
    cancelPayout(input);
    commitPayout(input);
    expect(input).toEqual(basePayout);
  });
});

describe('spec: Payout webhook payload: status list', () => {
  it('is the payout statuses without AWAITING_COMMIT', () => {
    expect(payoutWebhookStatuses).not.toContain('AWAITING_COMMIT');
    expect([...payoutWebhookStatuses, 'AWAITING_COMMIT'].sort()).toEqual(
      [...payoutStatuses].sort(),
    );
  });
});

const settled = { status: 'SETTLED', amount: 20 } as const;

describe('spec: Limits: refund eligibility', () => {
  it('a refund of a SETTLED payment with no earlier refunds is accepted (full or partial)', () => {
    expect(checkRefund({ payment: settled, refunds: [], amount: '20.00' })).toMatchObject({
      ok: true,
    });
    const partial = checkRefund({ payment: settled, refunds: [], amount: '5.25' });
    expect(partial.ok && formatDecimal(partial.remainingAfter, { minScale: 2 })).toBe('14.75');
  });

  it.each(paymentStatuses.filter((s) => s !== 'SETTLED'))(
    'payment %s → PAYMENT_NOT_SETTLED naming the status',
    (status) => {
      const result = checkRefund({ payment: { status, amount: 20 }, refunds: [], amount: '1' });
      expect(result).toMatchObject({
        ok: false,
        code: 'PAYMENT_NOT_SETTLED',
        paymentStatus: status,
      });
      if (!result.ok) expect(result.message).toContain(status);
      expect(refundRefusalStatus.PAYMENT_NOT_SETTLED).toEqual({
        statusCode: 422,
        statusName: 'UNPROCESSABLE_ENTITY',
        shownBySpec: true,
      });
    },
  );

  it.each(['0', '0.00', '-1', 'abc', '1e2', '1.005', '', null, Number.NaN, 0, -5])(
    'amount %j → AMOUNT_INVALID',
    (amount) => {
      expect(checkRefund({ payment: settled, refunds: [], amount })).toMatchObject({
        ok: false,
        code: 'AMOUNT_INVALID',
      });
    },
  );

  it.each(['IN_PROGRESS', 'HELD', 'SOMETHING_NEW'])(
    'an earlier refund in %s is active → REFUND_ALREADY_ACTIVE',
    (status) => {
      expect(
        checkRefund({ payment: settled, refunds: [{ amount: '1', status }], amount: '1' }),
      ).toMatchObject({ ok: false, code: 'REFUND_ALREADY_ACTIVE' });
    },
  );

  it.each(['PROCESSED', 'CANCELLED', 'FAILED', 'RETURNED'])(
    'an earlier refund in %s has finished: another may start',
    (status) => {
      expect(
        checkRefund({ payment: settled, refunds: [{ amount: '1', status }], amount: '1' }).ok,
      ).toBe(true);
    },
  );

  it('the sum of refunds cannot exceed the payment amount; CANCELLED, FAILED and RETURNED refunds do not count', () => {
    const refunds = [
      { amount: '15', status: 'PROCESSED' },
      { amount: '20', status: 'CANCELLED' },
      { amount: '20', status: 'FAILED' },
      { amount: '20', status: 'RETURNED' },
    ];
    expect(checkRefund({ payment: settled, refunds, amount: '5.00' }).ok).toBe(true);
    const over = checkRefund({ payment: settled, refunds, amount: '5.01' });
    expect(over).toMatchObject({ ok: false, code: 'REFUND_EXCEEDS_PAYMENT' });
    expect(!over.ok && over.available && formatDecimal(over.available, { minScale: 2 })).toBe(
      '5.00',
    );
  });

  it('0.1 + 0.2 does not break a refund total: 0.1, 0.2 then 0.7 use up a payment of 1.00 exactly', () => {
    const payment = { status: 'SETTLED', amount: 1 };
    const refunds = [
      { amount: 0.1, status: 'PROCESSED' },
      { amount: 0.2, status: 'PROCESSED' },
    ];
    expect(checkRefund({ payment, refunds, amount: '0.70' })).toMatchObject({ ok: true });
    expect(checkRefund({ payment, refunds, amount: '0.71' })).toMatchObject({
      ok: false,
      code: 'REFUND_EXCEEDS_PAYMENT',
    });
    expect(0.1 + 0.2 + 0.7 > 1).toBe(false); // floats happen to pass here; the next case is where they break
    expect(
      checkRefund({
        payment: { status: 'SETTLED', amount: 0.3 },
        refunds: [
          { amount: 0.1, status: 'PROCESSED' },
          { amount: 0.2, status: 'PROCESSED' },
        ],
        amount: '0.01',
      }),
    ).toMatchObject({ ok: false, code: 'REFUND_EXCEEDS_PAYMENT' });
    expect(
      checkRefund({
        payment: { status: 'SETTLED', amount: 0.3 },
        refunds: [{ amount: 0.1, status: 'PROCESSED' }],
        amount: 0.2,
      }),
    ).toMatchObject({ ok: true }); // with floats 0.1 + 0.2 > 0.3 would refuse this
  });

  it('property: a sequence of refund attempts never refunds more than the payment, and every refusal is justified', () => {
    const centsArb = fc.integer({ min: 1, max: 100_000 });
    fc.assert(
      fc.property(
        centsArb,
        fc.array(
          fc.record({
            cents: fc.integer({ min: -100, max: 60_000 }),
            outcome: fc.constantFrom(
              ...refundStatuses.filter((s) => s !== 'IN_PROGRESS' && s !== 'HELD'),
            ),
          }),
          { maxLength: 30 },
        ),
        (paymentCents, attempts) => {
          const payment = {
            status: 'SETTLED',
            amount: Number(formatDecimal({ units: BigInt(paymentCents), scale: 2 })),
          };
          const refunds: { amount: string; status: string }[] = [];
          for (const attempt of attempts) {
            const amount = formatDecimal({ units: BigInt(attempt.cents), scale: 2 });
            const result = checkRefund({ payment, refunds, amount });
            const counted = sumDecimals(
              refunds.filter((r) => r.status === 'PROCESSED').map((r) => toDecimal(r.amount)),
            );
            const remaining =
              BigInt(paymentCents) - counted.units * 10n ** BigInt(2 - counted.scale); // in cents
            if (result.ok) {
              expect(attempt.cents).toBeGreaterThan(0);
              expect(BigInt(attempt.cents) <= remaining).toBe(true);
              refunds.push({ amount, status: attempt.outcome }); // the refund then finishes with this outcome
            } else if (result.code === 'AMOUNT_INVALID') {
              expect(attempt.cents).toBeLessThanOrEqual(0);
            } else {
              expect(result.code).toBe('REFUND_EXCEEDS_PAYMENT');
              expect(BigInt(attempt.cents) > remaining).toBe(true);
            }
            const total = sumDecimals(
              refunds.filter((r) => r.status === 'PROCESSED').map((r) => toDecimal(r.amount)),
            );
            expect(compareDecimals(total, toDecimal(payment.amount))).toBeLessThanOrEqual(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

const payer: PaymentRefundData = {
  accountHolderName: 'Payer Name',
  accountIdentifications: [
    { type: 'ACCOUNT_NUMBER', number: '11223344' },
    { type: 'SORT_CODE', number: '300000' },
  ],
};

describe('spec: Limits: a refund goes only to the original paying account', () => {
  it('the destination is derived from the payer details', () => {
    expect(refundDestinationFromPayer(payer)).toEqual({
      ok: true,
      destination: {
        type: 'SCAN',
        name: 'Payer Name',
        accountNumber: '11223344',
        sortCode: '300000',
        iban: null,
      },
    });
  });
  it.each([
    ['null payer details', null],
    ['no identifications', { accountHolderName: 'X' }],
    [
      'no sort code',
      { accountHolderName: 'X', accountIdentifications: [{ type: 'ACCOUNT_NUMBER', number: '1' }] },
    ],
    [
      'two account numbers',
      {
        accountHolderName: 'X',
        accountIdentifications: [
          { type: 'ACCOUNT_NUMBER', number: '1' },
          { type: 'ACCOUNT_NUMBER', number: '2' },
          { type: 'SORT_CODE', number: '3' },
        ],
      },
    ],
    [
      'no holder name',
      {
        accountIdentifications: [
          { type: 'ACCOUNT_NUMBER', number: '1' },
          { type: 'SORT_CODE', number: '3' },
        ],
      },
    ],
  ] as const)('%s → PAYER_ACCOUNT_UNKNOWN', (_name, data) => {
    expect(refundDestinationFromPayer(data as PaymentRefundData | null)).toMatchObject({
      ok: false,
      code: 'PAYER_ACCOUNT_UNKNOWN',
    });
  });
  it('isOriginalPayerAccount compares account number and sort code digits', () => {
    expect(isOriginalPayerAccount({ accountNumber: '11223344', sortCode: '30-00-00' }, payer)).toBe(
      true,
    );
    expect(isOriginalPayerAccount({ accountNumber: '11223345', sortCode: '300000' }, payer)).toBe(
      false,
    );
    expect(isOriginalPayerAccount({ accountNumber: '11223344', sortCode: '300001' }, payer)).toBe(
      false,
    );
    expect(isOriginalPayerAccount({ accountNumber: '11223344', sortCode: '300000' }, null)).toBe(
      false,
    );
  });
  it('accountDifferences names the differing parts; the holder name is not one of them', () => {
    const original = { accountNumber: '11223344', sortCode: '30-00-00' };
    const renamed = { name: 'SOMEONE ELSE', accountNumber: '11223344', sortCode: '300000' };
    expect(accountDifferences(renamed, original)).toEqual([]);
    expect(accountDifferences({ accountNumber: '11223345', sortCode: 30_00_00 }, original)).toEqual(
      ['accountNumber', 'sortCode'],
    );
    expect(accountDifferences({}, original)).toEqual(['accountNumber', 'sortCode']);
  });
});
