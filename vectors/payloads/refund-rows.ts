// The refund's payloads: the create request and the refund resource.
// One row per case (cases.ts says how a row reads); case ids are public API: never renumber or rename them.
import { refundStatuses } from '../../src/schemas/index.js';
import type { CaseRow } from './cases.js';
import * as family from './families.js';
import { refundRequest, refund, edit } from './fixtures.js';

export const REFUND_REQUEST_ROWS: readonly CaseRow[] = [
  {
    valid: 'amount-string',
    description: 'amount as a decimal string, as in the spec examples',
    payload: refundRequest,
  },
  {
    valid: 'amount-integer-string',
    description: 'a decimal string without fraction',
    payload: {
      ...refundRequest,
      amount: '10',
    },
  },
  {
    valid: 'amount-number',
    description: 'whether a JSON number is accepted is not shown: the permissive schema accepts it',
    payload: { ...refundRequest, amount: 10.5 },
  },
  family.REQUIRES_NONE,
  {
    wrong: 'amount-exponent',
    description: 'a decimal string has no exponent',
    base: refundRequest,
    pointer: '/amount',
    value: '1e3',
    keyword: 'pattern',
  },
  {
    wrong: 'amount-comma',
    description: 'a decimal string uses a point, not a comma',
    base: refundRequest,
    pointer: '/amount',
    value: '10,50',
    keyword: 'pattern',
  },
  {
    wrong: 'amount-spaces',
    description: 'no spaces around the digits',
    base: refundRequest,
    pointer: '/amount',
    value: ' 10.50',
    keyword: 'pattern',
  },
  {
    wrong: 'amount-boolean',
    description: 'amount is a string (or a number)',
    base: refundRequest,
    pointer: '/amount',
    value: true,
    keyword: 'type',
  },
  {
    wrong: 'payment-id-number',
    description: 'number where the spec has a string',
    base: refundRequest,
    pointer: '/paymentId',
    value: 12345,
    keyword: 'type',
  },
  family.notUuid(refundRequest, '/paymentId', 'pay_123'),
  {
    wrong: 'amount-number',
    description: 'the strict variant requires the decimal string of the examples',
    base: refundRequest,
    pointer: '/amount',
    value: 10.5,
    keyword: 'type',
    strict: true,
  },
  {
    wrong: 'amount-three-decimals',
    description: 'the strict variant allows at most two fractional digits',
    base: refundRequest,
    pointer: '/amount',
    value: '10.505',
    keyword: 'pattern',
    strict: true,
  },
  {
    wrong: 'amount-negative',
    description: 'the strict variant has no sign',
    base: refundRequest,
    pointer: '/amount',
    value: '-1.00',
    keyword: 'pattern',
    strict: true,
  },
  {
    missing: 'missing-payment-id',
    description: 'the strict variant requires paymentId',
    base: refundRequest,
    pointer: '/paymentId',
    strict: true,
  },
  {
    missing: 'missing-amount',
    description: 'the strict variant requires amount',
    base: refundRequest,
    pointer: '/amount',
    strict: true,
  },
  family.rejectsAddedProperty('refund-request', refundRequest, '/destination', {}),
];

export const REFUND_ROWS: readonly CaseRow[] = [
  ...family.statusCases(refund, '/status', refundStatuses, {
    source: 'spec: States and transitions / Refund statuses',
  }),
  {
    valid: 'iban-string',
    description: 'destination iban as a string',
    payload: edit(refund, '/refundRequestDetails/destination/iban', 'GB33BUKB20201555555555'),
  },
  ...family.timestampCases(refund, '/createdAtUtc', [
    { valid: 'three-digits', description: 'createdAtUtc with three fractional digits' },
  ]),
  family.acceptsAddedProperties('refund', refund, [['/note', 'x']]),
  {
    wrong: 'status-awaiting-commit',
    description: 'AWAITING_COMMIT is a payout status, not a refund status',
    base: refund,
    pointer: '/status',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  ...family.timestampCases(refund, '/createdAtUtc', [
    { invalid: 'with-z', description: 'createdAtUtc has no zone suffix' },
    { invalid: 'no-fraction', description: 'createdAtUtc has fractional seconds' },
  ]),
  family.amountAsString(
    refund,
    '/refundRequestDetails/amount',
    'the response amount is a number (the request sends a string)',
  ),
  family.notUuid(refund, '/refundPaymentId', 'rf-1'),
  {
    wrong: 'currency-number',
    description: 'number where the spec has a string',
    base: refund,
    pointer: '/refundRequestDetails/currency',
    value: 826,
    keyword: 'type',
  },
  {
    missing: 'destination-missing-iban',
    description: 'destination iban is "string or null": present',
    base: refund,
    pointer: '/refundRequestDetails/destination/iban',
  },
  {
    missing: 'missing-refund-request-details',
    description: 'refundRequestDetails missing',
    base: refund,
    pointer: '/refundRequestDetails',
  },
  family.rejectsAddedProperty('refund', refund, '/refundRequestDetails/destination/bic', 'X', {
    slug: 'nested-unknown-property',
    description: 'the strict variant rejects unknown properties at every level',
  }),
];
