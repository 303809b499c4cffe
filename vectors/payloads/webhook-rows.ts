// The three webhook payloads: payment, payout and refund.
// One row per case (cases.ts says how a row reads); case ids are public API: never renumber or rename them.
import {
  paymentWebhookStatuses,
  payoutWebhookStatuses,
  refundStatuses,
} from '../../src/schemas/index.js';
import type { CaseRow } from './cases.js';
import * as family from './families.js';
import { paymentWebhook, payoutWebhook, refundWebhook, REMOVE, edit } from './fixtures.js';

/** The payment webhook without its optional fields (merchantPaymentId, paymentMetadata, paymentRequest.reference). */
const paymentWebhookMinimal = edit(
  edit(
    { ...paymentWebhook, paymentRefundData: null, paymentRequest: { amount: 42, currency: 'GBP' } },
    '/merchantPaymentId',
    REMOVE,
  ),
  '/paymentMetadata',
  REMOVE,
);
export const PAYMENT_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...family.statusCases(paymentWebhook, '/paymentStatus', paymentWebhookStatuses, {
    alongside: (status) => ({
      errorDescription: status === 'FAILED' ? 'Payment rejected by the payer bank' : null,
    }),
  }),
  {
    valid: 'minimal',
    description:
      'optional fields absent (merchantPaymentId, paymentRequest.reference, paymentMetadata), paymentRefundData null',
    payload: paymentWebhookMinimal,
  },
  {
    valid: 'refund-data-empty',
    description: 'accountHolderName and accountIdentifications are optional',
    payload: {
      ...paymentWebhook,
      paymentRefundData: {},
    },
  },
  {
    valid: 'external',
    description: 'isExternal true (manual bank transfer)',
    payload: {
      ...paymentWebhook,
      isExternal: true,
    },
  },
  family.acceptsAddedProperties('payment-webhook', paymentWebhook, [
    ['/newField', { a: 1 }],
    ['/paymentRequest/channel', 'web'],
  ]),
  {
    wrong: 'status-awaiting-authorization',
    description: 'no payment webhook is sent for AWAITING_AUTHORIZATION',
    base: paymentWebhook,
    pointer: '/paymentStatus',
    value: 'AWAITING_AUTHORIZATION',
    keyword: 'enum',
  },
  {
    wrong: 'is-external-string',
    description: 'isExternal is a boolean',
    base: paymentWebhook,
    pointer: '/isExternal',
    value: 'false',
    keyword: 'type',
  },
  family.amountAsString(paymentWebhook, '/paymentRequest/amount'),
  {
    wrong: 'identification-type-unknown',
    description: 'accountIdentifications type is ACCOUNT_NUMBER or SORT_CODE',
    base: paymentWebhook,
    pointer: '/paymentRefundData/accountIdentifications/0/type',
    value: 'IBAN',
    keyword: 'enum',
  },
  {
    wrong: 'identification-number-number',
    description: 'number where the spec has a string',
    base: paymentWebhook,
    pointer: '/paymentRefundData/accountIdentifications/1/number',
    value: 300000,
    keyword: 'type',
  },
  {
    missing: 'missing-error-description',
    description: 'errorDescription is "or null": present',
    base: paymentWebhook,
    pointer: '/errorDescription',
  },
  {
    missing: 'missing-currency',
    description: 'paymentRequest.currency missing',
    base: paymentWebhook,
    pointer: '/paymentRequest/currency',
  },
  {
    wrong: 'refund-data-string',
    description: 'paymentRefundData is an object or null',
    base: paymentWebhook,
    pointer: '/paymentRefundData',
    value: 'John Payer',
    keyword: 'type',
  },
  family.notUuid(paymentWebhook, '/paymentId', 'p-1'),
  family.rejectsAddedProperty('payment-webhook', paymentWebhook, '/newField', 1),
  {
    valid: 'metadata-free',
    description: 'the strict variant leaves paymentMetadata free',
    payload: { ...paymentWebhook, paymentMetadata: { any: { nested: [1, 'x'] } } },
    strict: true,
  },
];

export const PAYOUT_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...family.statusCases(payoutWebhook, '/payoutStatus', payoutWebhookStatuses),
  ...family.timestampCases(payoutWebhook, '/eventTimeUtc', [
    {
      valid: 'no-fraction',
      description: 'eventTimeUtc without fractional seconds (not shown whether present)',
    },
    {
      valid: 'no-zone',
      description:
        'eventTimeUtc without a zone designator (not shown whether present; UTC by name)',
    },
    {
      valid: 'utc-offset',
      description: 'eventTimeUtc with +00:00',
      value: '2024-05-01T12:31:02+00:00',
    },
  ]),
  {
    valid: 'status-description-text',
    description: 'payoutStatusDescription with text',
    payload: {
      ...payoutWebhook,
      payoutStatus: 'FAILED',
      payoutStatusDescription: 'Beneficiary account closed',
    },
  },
  {
    valid: 'delivery-attempt-3',
    description: 'a later delivery attempt',
    payload: {
      ...payoutWebhook,
      payoutWebhookDeliveryAttempt: 3,
    },
  },
  family.acceptsAddedProperties('payout-webhook', payoutWebhook, [
    ['/fee', 0],
    ['/destination/iban', null],
  ]),
  {
    wrong: 'status-awaiting-commit',
    description: 'the payout webhook status list does not include AWAITING_COMMIT',
    base: payoutWebhook,
    pointer: '/payoutStatus',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  ...family.timestampCases(payoutWebhook, '/eventTimeUtc', [
    {
      invalid: 'other-offset',
      description: 'eventTimeUtc is UTC: +01:00 is not',
      value: '2024-05-01T13:31:02+01:00',
    },
    { invalid: 'date-only', description: 'eventTimeUtc is a timestamp' },
    // Unix time in seconds here, where the payout's createdAt case has milliseconds.
    { invalid: 'number', description: 'number where the spec has a string', value: 1714566662 },
  ]),
  {
    wrong: 'delivery-attempt-negative',
    description: 'the delivery attempt counter starts at 0',
    base: payoutWebhook,
    pointer: '/payoutWebhookDeliveryAttempt',
    value: -1,
    keyword: 'minimum',
  },
  {
    wrong: 'delivery-attempt-fraction',
    description: 'the delivery attempt counter is an integer',
    base: payoutWebhook,
    pointer: '/payoutWebhookDeliveryAttempt',
    value: 1.5,
    keyword: 'type',
  },
  {
    wrong: 'delivery-attempt-string',
    description: 'string where the spec has an integer',
    base: payoutWebhook,
    pointer: '/payoutWebhookDeliveryAttempt',
    value: '0',
    keyword: 'type',
  },
  family.amountAsString(payoutWebhook, '/payoutAmount'),
  {
    missing: 'destination-missing-name',
    description: 'destination.name missing',
    base: payoutWebhook,
    pointer: '/destination/name',
  },
  {
    missing: 'missing-status-description',
    description: 'payoutStatusDescription "may be empty" but is present',
    base: payoutWebhook,
    pointer: '/payoutStatusDescription',
  },
  family.rejectsAddedProperty('payout-webhook', payoutWebhook, '/fee', 0),
  ...family.timestampCases(payoutWebhook, '/eventTimeUtc', [
    {
      invalid: 'no-fraction',
      description: 'the strict variant uses the createdAt form (fractional seconds and Z)',
      strict: true,
    },
  ]),
];

export const REFUND_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...family.statusCases(refundWebhook, '/refundStatus', refundStatuses),
  {
    valid: 'merchant-payment-id-null',
    description:
      'refundedMerchantPaymentId null: what it holds for a payment without merchantPaymentId is not shown',
    payload: { ...refundWebhook, refundedMerchantPaymentId: null },
  },
  {
    valid: 'merchant-payment-id-absent',
    description: 'refundedMerchantPaymentId absent: not shown, accepted by the permissive schema',
    payload: edit(refundWebhook, '/refundedMerchantPaymentId', REMOVE),
  },
  family.acceptsAddedProperties('refund-webhook', refundWebhook, [
    ['/fee', 0],
    ['/destination/iban', null],
  ]),
  {
    wrong: 'status-awaiting-commit',
    description: 'AWAITING_COMMIT is not a refund status',
    base: refundWebhook,
    pointer: '/refundStatus',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  family.amountAsString(refundWebhook, '/refundAmount'),
  {
    wrong: 'payment-amount-string',
    description: 'string where the spec has a number',
    base: refundWebhook,
    pointer: '/refundedPaymentAmount',
    value: '42',
    keyword: 'type',
  },
  {
    wrong: 'refund-id-number',
    description: 'number where the spec has a string',
    base: refundWebhook,
    pointer: '/refundId',
    value: 1,
    keyword: 'type',
  },
  {
    wrong: 'merchant-payment-id-number',
    description: 'number where the spec has a string',
    base: refundWebhook,
    pointer: '/refundedMerchantPaymentId',
    value: 10001,
    keyword: 'type',
  },
  ...family.timestampCases(refundWebhook, '/eventTimeUtc', [
    {
      invalid: 'bad-form',
      description: 'eventTimeUtc is an ISO 8601 timestamp',
      value: '02/05/2024 09:16',
    },
  ]),
  {
    missing: 'missing-refund-status',
    description: 'refundStatus missing',
    base: refundWebhook,
    pointer: '/refundStatus',
  },
  {
    missing: 'missing-delivery-attempt',
    description: 'refundWebhookDeliveryAttempt missing',
    base: refundWebhook,
    pointer: '/refundWebhookDeliveryAttempt',
  },
  {
    wrong: 'merchant-payment-id-null',
    description: 'the strict variant requires a string',
    base: refundWebhook,
    pointer: '/refundedMerchantPaymentId',
    value: null,
    keyword: 'type',
    strict: true,
  },
  family.rejectsAddedProperty('refund-webhook', refundWebhook, '/destination/iban', null),
];
