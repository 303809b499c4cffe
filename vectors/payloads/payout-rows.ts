// The payout's request payloads: the account object, the payout destination and the create request.
// One row per case (cases.ts says how a row reads); case ids are public API: never renumber or rename them.
import type { CaseRow } from './cases.js';
import * as family from './families.js';
import { APP, account, destination, createRequest, REMOVE, edit } from './fixtures.js';

export const ACCOUNT_ROWS: readonly CaseRow[] = [
  {
    valid: 'scan-iban-bic-null',
    description: 'SCAN account as shown: iban and bic null when not used',
    payload: account,
  },
  {
    valid: 'iban-bic-strings',
    description: 'iban and bic are "string or null": strings are valid',
    payload: {
      ...account,
      iban: 'GB33BUKB20201555555555',
      bic: 'BUKBGB22',
    },
  },
  {
    valid: 'other-type',
    description:
      '"Other values of type: not shown": any string is accepted by the permissive schema',
    payload: { ...account, type: 'IBAN' },
  },
  family.acceptsAddedProperties('account', account, [['/nickname', 'ops']]),
  {
    missing: 'missing-bic',
    description: 'bic is listed in the table ("null when not used"): absent is invalid',
    base: account,
    pointer: '/bic',
  },
  {
    missing: 'missing-account-number',
    description: 'accountNumber missing',
    base: account,
    pointer: '/accountNumber',
  },
  {
    wrong: 'iban-number',
    description: 'iban must be a string or null',
    base: account,
    pointer: '/iban',
    value: 12345678,
    keyword: 'type',
  },
  {
    wrong: 'account-number-number',
    description: 'number where the spec has a string',
    base: account,
    pointer: '/accountNumber',
    value: 12345678,
    keyword: 'type',
  },
  {
    wrong: 'sort-code-number',
    description: 'number where the spec has a string',
    base: account,
    pointer: '/sortCode',
    value: 40004,
    keyword: 'type',
  },
  {
    invalid: 'not-an-object',
    description: 'the account object must be a JSON object',
    payload: [account],
    errors: [['', 'type']],
  },
  {
    wrong: 'other-type',
    description: 'the strict variant allows only the shown type SCAN',
    base: account,
    pointer: '/type',
    value: 'IBAN',
    keyword: 'const',
    strict: true,
  },
  family.rejectsAddedProperty('account', account, '/nickname', 'ops'),
];

export const PAYOUT_DESTINATION_ROWS: readonly CaseRow[] = [
  {
    valid: 'to-account-scan',
    description: 'destinationType toAccount, accountType SCAN, iban null (values shown)',
    payload: destination,
  },
  family.REQUIRES_NONE,
  {
    valid: 'other-types',
    description:
      'other destinationType and accountType values are not shown: accepted by the permissive schema',
    payload: {
      ...destination,
      destinationType: 'toIban',
      accountType: 'IBAN',
      iban: 'GB33BUKB20201555555555',
    },
  },
  {
    wrong: 'holder-name-number',
    description: 'number where the spec has a string',
    base: destination,
    pointer: '/holderName',
    value: 42,
    keyword: 'type',
  },
  {
    wrong: 'account-number-number',
    description: 'number where the spec has a string',
    base: destination,
    pointer: '/accountNumber',
    value: 87654321,
    keyword: 'type',
  },
  {
    wrong: 'iban-boolean',
    description: 'iban must be a string or null',
    base: destination,
    pointer: '/iban',
    value: false,
    keyword: 'type',
  },
  {
    invalid: 'empty-object',
    description: 'the strict variant requires every field of the table',
    payload: {},
    errors: [
      '/destinationType',
      '/accountType',
      '/holderName',
      '/accountNumber',
      '/sortCode',
      '/iban',
    ].map((p) => [p, 'required'] as const),
    strict: true,
  },
  {
    wrong: 'other-destination-type',
    description: 'the strict variant allows only toAccount',
    base: destination,
    pointer: '/destinationType',
    value: 'toIban',
    keyword: 'const',
    strict: true,
  },
  family.rejectsAddedProperty('payout-destination', destination, '/bic', 'BUKBGB22'),
];

export const PAYOUT_CREATE_REQUEST_ROWS: readonly CaseRow[] = [
  {
    valid: 'full',
    description: 'every field of the table, doNotCommitOnCoPMismatch true',
    payload: createRequest,
  },
  {
    valid: 'without-do-not-commit',
    description: 'doNotCommitOnCoPMismatch is optional (default false)',
    payload: edit(createRequest, '/doNotCommitOnCoPMismatch', REMOVE),
  },
  {
    valid: 'do-not-commit-false',
    description: 'doNotCommitOnCoPMismatch false: always auto-commit',
    payload: {
      ...createRequest,
      doNotCommitOnCoPMismatch: false,
    },
  },
  family.REQUIRES_NONE,
  family.acceptsAddedProperties('payout-create-request', createRequest, [['/note', 'x']]),
  family.amountAsString(
    createRequest,
    '/amount',
    'string where the spec has a number (amount is "number (decimal)")',
  ),
  {
    wrong: 'reference-number',
    description: 'number where the spec has a string',
    base: createRequest,
    pointer: '/reference',
    value: 1001,
    keyword: 'type',
  },
  {
    wrong: 'do-not-commit-string',
    description: 'doNotCommitOnCoPMismatch is a boolean, not the string "true"',
    base: createRequest,
    pointer: '/doNotCommitOnCoPMismatch',
    value: 'true',
    keyword: 'type',
  },
  family.notUuid(createRequest, '/applicationId', 'app-1'),
  {
    wrong: 'application-id-urn-uuid',
    description: 'a urn:uuid: prefix is not the UUID textual form',
    base: createRequest,
    pointer: '/applicationId',
    value: `urn:uuid:${APP}`,
    keyword: 'pattern',
  },
  {
    wrong: 'destination-iban-number',
    description: 'the destination is checked too: iban must be a string or null',
    base: createRequest,
    pointer: '/destination/iban',
    value: 1,
    keyword: 'type',
  },
  {
    wrong: 'destination-string',
    description: 'destination is an object',
    base: createRequest,
    pointer: '/destination',
    value: 'toAccount',
    keyword: 'type',
  },
  {
    missing: 'missing-amount',
    description: 'the strict variant requires amount',
    base: createRequest,
    pointer: '/amount',
    strict: true,
  },
  {
    missing: 'missing-destination',
    description: 'the strict variant requires destination',
    base: createRequest,
    pointer: '/destination',
    strict: true,
  },
  {
    wrong: 'amount-zero',
    description: 'the strict variant requires an amount greater than zero',
    base: createRequest,
    pointer: '/amount',
    value: 0,
    keyword: 'exclusiveMinimum',
    strict: true,
  },
  {
    missing: 'destination-missing-iban',
    description: 'the strict destination requires iban (null when not used)',
    base: createRequest,
    pointer: '/destination/iban',
    strict: true,
  },
  family.rejectsAddedProperty('payout-create-request', createRequest, '/note', 'x'),
  {
    valid: 'without-do-not-commit',
    description: 'the strict variant keeps doNotCommitOnCoPMismatch optional',
    payload: edit(createRequest, '/doNotCommitOnCoPMismatch', REMOVE),
    strict: true,
  },
];
