// The payout resource's and the error body's payloads.
// One row per case (cases.ts says how a row reads); case ids are public API: never renumber or rename them.
import { copStatuses, payoutStatuses } from '../../src/schemas/index.js';
import { PAYOUT_CANCEL_STATUS_REASON } from '../../src/rules/payout-status.js';
import type { CaseRow } from './cases.js';
import * as family from './families.js';
import { payout, errorBody, REMOVE, edit, kebab } from './fixtures.js';

export const PAYOUT_ROWS: readonly CaseRow[] = [
  ...family.statusCases(payout, '/status', payoutStatuses, {
    source: 'spec: States and transitions / Payout statuses',
    alongside: (status) => ({
      copStatus:
        status === 'AWAITING_COMMIT' || status === 'CANCELLED' ? 'PARTIAL_MATCH' : 'FULL_MATCH',
      statusReason: status === 'CANCELLED' ? PAYOUT_CANCEL_STATUS_REASON : null,
    }),
  }),
  ...[...copStatuses, null].map((cop) => ({
    valid: `cop-${cop === null ? 'null' : kebab(cop)}`,
    description: `copStatus ${cop === null ? 'null (CoP not active)' : cop}`,
    payload: { ...payout, copStatus: cop },
  })),
  {
    valid: 'iban-bic-strings',
    description: 'source iban and bic as strings',
    payload: edit(
      edit(payout, '/source/iban', 'GB33BUKB20201555555555'),
      '/source/bic',
      'BUKBGB22',
    ),
  },
  ...family.timestampCases(payout, '/createdAt', [
    {
      valid: 'seven-digits',
      description: 'createdAt with seven fractional digits (the count is not shown)',
    },
  ]),
  {
    valid: 'tracing-id-upper-case',
    description: 'tracingId hexadecimal in upper case (case not shown)',
    payload: {
      ...payout,
      tracingId: '4BF92F3577B34DA6',
    },
  },
  family.acceptsAddedProperties('payout', payout, [['/fee', 0.2]]),
  {
    wrong: 'status-unknown',
    description: 'status outside the list',
    base: payout,
    pointer: '/status',
    value: 'COMMITTED',
    keyword: 'enum',
  },
  {
    wrong: 'status-lower-case',
    description: 'status values are upper case',
    base: payout,
    pointer: '/status',
    value: 'in_progress',
    keyword: 'enum',
  },
  {
    wrong: 'cop-status-unknown',
    description: 'copStatus outside the six values and null',
    base: payout,
    pointer: '/copStatus',
    value: 'MATCH',
    keyword: 'enum',
  },
  {
    wrong: 'cop-status-empty',
    description: 'an empty copStatus is not null',
    base: payout,
    pointer: '/copStatus',
    value: '',
    keyword: 'enum',
  },
  {
    missing: 'missing-cop-status',
    description: 'copStatus is "or null": present with null, not absent',
    base: payout,
    pointer: '/copStatus',
  },
  {
    missing: 'missing-status-reason',
    description: 'statusReason is "or null": present with null, not absent',
    base: payout,
    pointer: '/statusReason',
  },
  { missing: 'missing-status', description: 'status missing', base: payout, pointer: '/status' },
  family.amountAsString(payout, '/amount'),
  {
    wrong: 'reference-number',
    description: 'number where the spec has a string',
    base: payout,
    pointer: '/reference',
    value: 1001,
    keyword: 'type',
  },
  {
    wrong: 'tracing-id-not-hex',
    description: 'tracingId is hexadecimal',
    base: payout,
    pointer: '/tracingId',
    value: 'trace-4bf9',
    keyword: 'pattern',
  },
  {
    wrong: 'tracing-id-number',
    description: 'number where the spec has a string',
    base: payout,
    pointer: '/tracingId',
    value: 1234,
    keyword: 'type',
  },
  ...family.timestampCases(payout, '/createdAt', [
    { invalid: 'no-fraction', description: 'createdAt must have fractional seconds' },
    { invalid: 'no-zone', description: 'createdAt must end in Z' },
    { invalid: 'offset', description: 'createdAt must use Z, not +00:00' },
    { invalid: 'date-only', description: 'createdAt is a timestamp, not a date' },
    { invalid: 'number', description: 'number where the spec has a string (Unix time)' },
  ]),
  family.notUuid(payout, '/payoutId', '12345'),
  {
    wrong: 'source-iban-number',
    description: 'source.iban must be a string or null',
    base: payout,
    pointer: '/source/iban',
    value: 7,
    keyword: 'type',
  },
  {
    missing: 'destination-missing-account-number',
    description: 'destination.accountNumber missing',
    base: payout,
    pointer: '/destination/accountNumber',
  },
  {
    wrong: 'source-null',
    description: 'source is an account object, not null',
    base: payout,
    pointer: '/source',
    value: null,
    keyword: 'type',
  },
  {
    invalid: 'not-an-object',
    description: 'a payout is a JSON object',
    payload: [payout],
    errors: [['', 'type']],
  },
  {
    invalid: 'several-errors',
    description: 'every violation is reported, each at its pointer',
    payload: edit(edit(edit(payout, '/status', 'DONE'), '/amount', '1'), '/copStatus', REMOVE),
    errors: [
      ['/status', 'enum'],
      ['/amount', 'type'],
      ['/copStatus', 'required'],
    ],
  },
  family.rejectsAddedProperty('payout', payout, '/fee', 0.2),
  family.rejectsAddedProperty('payout', payout, '/source/nickname', 'ops', {
    slug: 'nested-unknown-property',
    description: 'the strict variant rejects unknown properties in source',
  }),
  {
    wrong: 'currency-usd',
    description: 'the strict variant allows only the shown currency GBP',
    base: payout,
    pointer: '/currency',
    value: 'USD',
    keyword: 'const',
    strict: true,
  },
];

export const ERROR_ROWS: readonly CaseRow[] = [
  {
    valid: 'refund-not-settled',
    description: 'the known case: 422 UNPROCESSABLE_ENTITY naming the payment status',
    payload: errorBody,
  },
  {
    valid: 'server-error',
    description: 'a 5xx error body',
    payload: {
      ...errorBody,
      statusCode: 500,
      statusName: 'INTERNAL_SERVER_ERROR',
      errorMessage: 'Internal error',
    },
  },
  {
    wrong: 'status-code-string',
    description: 'string where the spec has an integer',
    base: errorBody,
    pointer: '/statusCode',
    value: '422',
    keyword: 'type',
  },
  {
    wrong: 'status-code-fraction',
    description: 'statusCode is an integer',
    base: errorBody,
    pointer: '/statusCode',
    value: 422.5,
    keyword: 'type',
  },
  {
    wrong: 'status-code-success',
    description: 'an error body carries a 4xx or 5xx status',
    base: errorBody,
    pointer: '/statusCode',
    value: 200,
    keyword: 'minimum',
  },
  {
    missing: 'missing-trace-id',
    description: 'traceId missing',
    base: errorBody,
    pointer: '/traceId',
  },
  {
    wrong: 'error-message-null',
    description: 'errorMessage is a string',
    base: errorBody,
    pointer: '/errorMessage',
    value: null,
    keyword: 'type',
  },
  {
    wrong: 'status-name-lower-case',
    description: 'the strict variant uses the upper-case form of the example',
    base: errorBody,
    pointer: '/statusName',
    value: 'Unprocessable Entity',
    keyword: 'pattern',
    strict: true,
  },
];
