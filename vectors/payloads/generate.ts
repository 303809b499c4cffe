// Generates the payload vectors (vectors/payloads/<kind>.json): valid payloads built from the spec's tables and
// invalid variants, each labelled with the pointers and keywords a validator must report.
// Run: npx tsx vectors/payloads/generate.ts. Case ids are public API: never renumber or rename them.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  copStatuses,
  payloadKinds,
  payloadSchemaId,
  payoutStatuses,
  paymentWebhookStatuses,
  payoutWebhookStatuses,
  refundStatuses,
  type Account,
  type ErrorBody,
  type PayloadKind,
  type PaymentWebhook,
  type Payout,
  type PayoutCreateRequest,
  type PayoutDestination,
  type PayoutWebhook,
  type Refund,
  type RefundRequest,
  type RefundWebhook,
} from '../../src/schemas/index.js';
import { PAYOUT_CANCEL_STATUS_REASON } from '../../src/rules/payout-status.js';

export interface ExpectedError {
  readonly pointer: string;
  readonly keyword: string;
}

export interface PayloadVectorCase {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  /** Present when the case targets another schema than the file's (the strict variant). */
  readonly schema?: string;
  readonly result: 'valid' | 'invalid';
  readonly payload: unknown;
  readonly expectedErrors?: readonly ExpectedError[];
}

export interface PayloadVectorFile {
  readonly kind: PayloadKind;
  readonly schema: string;
  readonly strictSchema: string;
  readonly generatedBy: string;
  readonly cases: readonly PayloadVectorCase[];
}

const GENERATED_BY =
  'vectors/payloads/generate.ts (npx tsx vectors/payloads/generate.ts); do not edit by hand';

// ---- building blocks from the spec's tables ----
const APP = '6f1c2b3a-4d5e-4f60-8a71-92b3c4d5e6f7';
const PAYOUT_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const PAYMENT_ID = '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718';
const REFUND_ID = '2c3d4e5f-6071-4b82-9ca3-d4e5f6071829';

const account: Account = {
  type: 'SCAN',
  name: 'Acme Trading Ltd',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
  bic: null,
};
const payeeAccount: Account = {
  type: 'SCAN',
  name: 'Jane Doe',
  accountNumber: '87654321',
  sortCode: '200000',
  iban: null,
  bic: null,
};
const destination: Required<PayoutDestination> = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Jane Doe',
  accountNumber: '87654321',
  sortCode: '200000',
  iban: null,
};
const createRequest: Required<PayoutCreateRequest> = {
  applicationId: APP,
  payInAccountSelector: 'main-gbp',
  amount: 125.5,
  reference: 'INV-2024-0001',
  destination,
  doNotCommitOnCoPMismatch: true,
};
const payout: Payout = {
  applicationId: APP,
  payoutId: PAYOUT_ID,
  createdAt: '2024-05-01T12:30:45.123Z',
  status: 'IN_PROGRESS',
  amount: 125.5,
  reference: 'INV-2024-0001',
  currency: 'GBP',
  source: account,
  destination: payeeAccount,
  tracingId: '4bf92f3577b34da6a3ce929d0e0e4736',
  copStatus: 'FULL_MATCH',
  statusReason: null,
};
const refundRequest: Required<RefundRequest> = { paymentId: PAYMENT_ID, amount: '10.50' };
const refund: Refund = {
  refundPaymentId: REFUND_ID,
  refundedPaymentId: PAYMENT_ID,
  createdAtUtc: '2024-05-02T09:15:00.1234567',
  status: 'IN_PROGRESS',
  refundRequestDetails: {
    amount: 10.5,
    currency: 'GBP',
    reference: 'RF7QK2M9XA',
    destination: {
      type: 'SCAN',
      name: 'John Payer',
      accountNumber: '11223344',
      sortCode: '300000',
      iban: null,
    },
  },
};
const errorBody: ErrorBody = {
  statusCode: 422,
  statusName: 'UNPROCESSABLE_ENTITY',
  errorMessage: 'Payment status is AWAITING_AUTHORIZATION; a refund requires SETTLED',
  traceId: '8d3e4c1a9b7f',
  source: 'MERCHANT',
};
const paymentWebhook: PaymentWebhook = {
  paymentId: PAYMENT_ID,
  merchantPaymentId: 'order-10001',
  paymentStatus: 'SETTLED',
  errorDescription: null,
  paymentRequest: { amount: 42, currency: 'GBP', reference: 'ORDER10001' },
  paymentRefundData: {
    accountHolderName: 'John Payer',
    accountIdentifications: [
      { type: 'ACCOUNT_NUMBER', number: '11223344' },
      { type: 'SORT_CODE', number: '300000' },
    ],
  },
  paymentMetadata: { basketId: 'b-77', channel: 'web' },
  applicationId: APP,
  isExternal: false,
};
const payoutWebhook: PayoutWebhook = {
  eventTimeUtc: '2024-05-01T12:31:02.456Z',
  applicationId: APP,
  payoutId: PAYOUT_ID,
  payoutAmount: 125.5,
  payoutCurrency: 'GBP',
  payoutReference: 'INV-2024-0001',
  payoutStatus: 'PROCESSED',
  payoutStatusDescription: '',
  payoutWebhookDeliveryAttempt: 0,
  destination: { type: 'SCAN', name: 'Jane Doe', accountNumber: '87654321', sortCode: '200000' },
};
const refundWebhook: RefundWebhook = {
  eventTimeUtc: '2024-05-02T09:16:10.000Z',
  applicationId: APP,
  refundedPaymentId: PAYMENT_ID,
  refundedMerchantPaymentId: 'order-10001',
  refundedPaymentAmount: 42,
  refundId: REFUND_ID,
  refundAmount: 10.5,
  refundCurrency: 'GBP',
  refundReference: 'RF7QK2M9XA',
  refundStatus: 'IN_PROGRESS',
  refundStatusDescription: '',
  refundWebhookDeliveryAttempt: 0,
  destination: { type: 'SCAN', accountNumber: '11223344', sortCode: '300000', name: 'John Payer' },
};

// ---- helpers ----
type Json = unknown;

/** A deep copy of `base` with the value at a JSON pointer replaced, or removed when `value` is REMOVE. */
const REMOVE = Symbol('remove');
function edit(base: Json, pointer: string, value: Json | typeof REMOVE): Json {
  const copy = structuredClone(base) as Record<string, unknown>;
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node: Record<string, unknown> = copy;
  for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
  const last = tokens[tokens.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

const kebab = (s: string): string => s.toLowerCase().replaceAll('_', '-');

class Cases {
  readonly list: PayloadVectorCase[] = [];
  constructor(
    private readonly kind: PayloadKind,
    private readonly section: string,
  ) {}

  valid(
    slug: string,
    description: string,
    payload: Json,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.push({ slug: `valid-${slug}`, description, payload, result: 'valid', ...options });
  }

  invalid(
    slug: string,
    description: string,
    payload: Json,
    expectedErrors: readonly (readonly [string, string])[],
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.push({
      slug: `invalid-${slug}`,
      description,
      payload,
      result: 'invalid',
      errors: expectedErrors,
      ...options,
    });
  }

  /** Sets `pointer` to `value`: invalid with the given keyword at that pointer. */
  wrong(
    slug: string,
    description: string,
    base: Json,
    pointer: string,
    value: Json,
    keyword: string,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.invalid(slug, description, edit(base, pointer, value), [[pointer, keyword]], options);
  }

  /** Removes `pointer`: invalid, reported as `required` at the removed property. */
  missing(
    slug: string,
    description: string,
    base: Json,
    pointer: string,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.invalid(slug, description, edit(base, pointer, REMOVE), [[pointer, 'required']], options);
  }

  private push(c: {
    slug: string;
    description: string;
    payload: Json;
    result: 'valid' | 'invalid';
    errors?: readonly (readonly [string, string])[];
    strict?: boolean;
    source?: string;
  }): void {
    const id = `${this.kind}-${c.strict === true ? 'strict-' : ''}${c.slug}`;
    this.list.push({
      id,
      description: c.description,
      source:
        c.source ??
        (c.strict === true ? `payconform strict variant; ${this.section}` : this.section),
      ...(c.strict === true ? { schema: payloadSchemaId(this.kind, { strict: true }) } : {}),
      result: c.result,
      payload: c.payload,
      ...(c.errors
        ? { expectedErrors: c.errors.map(([pointer, keyword]) => ({ pointer, keyword })) }
        : {}),
    });
  }
}

// ---- the cases, per kind ----
function accountCases(): Cases {
  const c = new Cases('account', 'spec: Resources and their fields / Account object');
  c.valid('scan-iban-bic-null', 'SCAN account as shown: iban and bic null when not used', account);
  c.valid('iban-bic-strings', 'iban and bic are "string or null": strings are valid', {
    ...account,
    iban: 'GB33BUKB20201555555555',
    bic: 'BUKBGB22',
  });
  c.valid(
    'other-type',
    '"Other values of type: not shown": any string is accepted by the permissive schema',
    { ...account, type: 'IBAN' },
  );
  c.valid('unknown-property', 'an added property is accepted (the service may add fields)', {
    ...account,
    nickname: 'ops',
  });
  c.missing(
    'missing-bic',
    'bic is listed in the table ("null when not used"): absent is invalid',
    account,
    '/bic',
  );
  c.missing('missing-account-number', 'accountNumber missing', account, '/accountNumber');
  c.wrong('iban-number', 'iban must be a string or null', account, '/iban', 12345678, 'type');
  c.wrong(
    'account-number-number',
    'number where the spec has a string',
    account,
    '/accountNumber',
    12345678,
    'type',
  );
  c.wrong(
    'sort-code-number',
    'number where the spec has a string',
    account,
    '/sortCode',
    40004,
    'type',
  );
  c.invalid('not-an-object', 'the account object must be a JSON object', [account], [['', 'type']]);
  c.wrong(
    'other-type',
    'the strict variant allows only the shown type SCAN',
    account,
    '/type',
    'IBAN',
    'const',
    { strict: true },
  );
  c.invalid(
    'unknown-property',
    'the strict variant rejects unknown properties',
    { ...account, nickname: 'ops' },
    [['/nickname', 'unevaluatedProperties']],
    { strict: true },
  );
  return c;
}

function payoutDestinationCases(): Cases {
  const c = new Cases(
    'payout-destination',
    'spec: Resources and their fields / Payout destination',
  );
  c.valid(
    'to-account-scan',
    'destinationType toAccount, accountType SCAN, iban null (values shown)',
    destination,
  );
  c.valid(
    'empty-object',
    'required-ness of request fields is not shown: the permissive schema requires none',
    {},
  );
  c.valid(
    'other-types',
    'other destinationType and accountType values are not shown: accepted by the permissive schema',
    {
      ...destination,
      destinationType: 'toIban',
      accountType: 'IBAN',
      iban: 'GB33BUKB20201555555555',
    },
  );
  c.wrong(
    'holder-name-number',
    'number where the spec has a string',
    destination,
    '/holderName',
    42,
    'type',
  );
  c.wrong(
    'account-number-number',
    'number where the spec has a string',
    destination,
    '/accountNumber',
    87654321,
    'type',
  );
  c.wrong('iban-boolean', 'iban must be a string or null', destination, '/iban', false, 'type');
  c.invalid(
    'empty-object',
    'the strict variant requires every field of the table',
    {},
    ['/destinationType', '/accountType', '/holderName', '/accountNumber', '/sortCode', '/iban'].map(
      (p) => [p, 'required'] as const,
    ),
    { strict: true },
  );
  c.wrong(
    'other-destination-type',
    'the strict variant allows only toAccount',
    destination,
    '/destinationType',
    'toIban',
    'const',
    { strict: true },
  );
  c.invalid(
    'unknown-property',
    'the strict variant rejects unknown properties',
    { ...destination, bic: 'BUKBGB22' },
    [['/bic', 'additionalProperties']],
    { strict: true },
  );
  return c;
}

function payoutCreateRequestCases(): Cases {
  const c = new Cases('payout-create-request', 'spec: Endpoints / 1. Create payout / request body');
  c.valid('full', 'every field of the table, doNotCommitOnCoPMismatch true', createRequest);
  c.valid(
    'without-do-not-commit',
    'doNotCommitOnCoPMismatch is optional (default false)',
    edit(createRequest, '/doNotCommitOnCoPMismatch', REMOVE),
  );
  c.valid('do-not-commit-false', 'doNotCommitOnCoPMismatch false: always auto-commit', {
    ...createRequest,
    doNotCommitOnCoPMismatch: false,
  });
  c.valid(
    'empty-object',
    'required-ness of request fields is not shown: the permissive schema requires none',
    {},
  );
  c.valid(
    'unknown-property',
    'whether unknown request properties are rejected is not shown: the permissive schema accepts them',
    { ...createRequest, note: 'x' },
  );
  c.wrong(
    'amount-string',
    'string where the spec has a number (amount is "number (decimal)")',
    createRequest,
    '/amount',
    '125.50',
    'type',
  );
  c.wrong(
    'reference-number',
    'number where the spec has a string',
    createRequest,
    '/reference',
    1001,
    'type',
  );
  c.wrong(
    'do-not-commit-string',
    'doNotCommitOnCoPMismatch is a boolean, not the string "true"',
    createRequest,
    '/doNotCommitOnCoPMismatch',
    'true',
    'type',
  );
  c.wrong(
    'application-id-not-uuid',
    'applicationId is a UUID',
    createRequest,
    '/applicationId',
    'app-1',
    'pattern',
  );
  c.wrong(
    'application-id-urn-uuid',
    'a urn:uuid: prefix is not the UUID textual form',
    createRequest,
    '/applicationId',
    `urn:uuid:${APP}`,
    'pattern',
  );
  c.wrong(
    'destination-iban-number',
    'the destination is checked too: iban must be a string or null',
    createRequest,
    '/destination/iban',
    1,
    'type',
  );
  c.wrong(
    'destination-string',
    'destination is an object',
    createRequest,
    '/destination',
    'toAccount',
    'type',
  );
  c.missing('missing-amount', 'the strict variant requires amount', createRequest, '/amount', {
    strict: true,
  });
  c.missing(
    'missing-destination',
    'the strict variant requires destination',
    createRequest,
    '/destination',
    { strict: true },
  );
  c.wrong(
    'amount-zero',
    'the strict variant requires an amount greater than zero',
    createRequest,
    '/amount',
    0,
    'exclusiveMinimum',
    { strict: true },
  );
  c.missing(
    'destination-missing-iban',
    'the strict destination requires iban (null when not used)',
    createRequest,
    '/destination/iban',
    { strict: true },
  );
  c.invalid(
    'unknown-property',
    'the strict variant rejects unknown properties',
    { ...createRequest, note: 'x' },
    [['/note', 'additionalProperties']],
    { strict: true },
  );
  c.valid(
    'without-do-not-commit',
    'the strict variant keeps doNotCommitOnCoPMismatch optional',
    edit(createRequest, '/doNotCommitOnCoPMismatch', REMOVE),
    { strict: true },
  );
  return c;
}

function payoutCases(): Cases {
  const c = new Cases('payout', 'spec: Resources and their fields / Payout resource');
  for (const status of payoutStatuses) {
    const copStatus =
      status === 'AWAITING_COMMIT' || status === 'CANCELLED' ? 'PARTIAL_MATCH' : 'FULL_MATCH';
    const statusReason = status === 'CANCELLED' ? PAYOUT_CANCEL_STATUS_REASON : null;
    c.valid(
      `status-${kebab(status)}`,
      `status ${status}`,
      { ...payout, status, copStatus, statusReason },
      { source: 'spec: States and transitions / Payout statuses' },
    );
  }
  for (const cop of [...copStatuses, null]) {
    c.valid(
      `cop-${cop === null ? 'null' : kebab(cop)}`,
      `copStatus ${cop === null ? 'null (CoP not active)' : cop}`,
      { ...payout, copStatus: cop },
    );
  }
  c.valid(
    'iban-bic-strings',
    'source iban and bic as strings',
    edit(edit(payout, '/source/iban', 'GB33BUKB20201555555555'), '/source/bic', 'BUKBGB22'),
  );
  c.valid(
    'created-at-seven-digits',
    'createdAt with seven fractional digits (the count is not shown)',
    { ...payout, createdAt: '2024-05-01T12:30:45.1234567Z' },
  );
  c.valid('tracing-id-upper-case', 'tracingId hexadecimal in upper case (case not shown)', {
    ...payout,
    tracingId: '4BF92F3577B34DA6',
  });
  c.valid('unknown-property', 'an added property is accepted (the service may add fields)', {
    ...payout,
    fee: 0.2,
  });
  c.wrong('status-unknown', 'status outside the list', payout, '/status', 'COMMITTED', 'enum');
  c.wrong(
    'status-lower-case',
    'status values are upper case',
    payout,
    '/status',
    'in_progress',
    'enum',
  );
  c.wrong(
    'cop-status-unknown',
    'copStatus outside the six values and null',
    payout,
    '/copStatus',
    'MATCH',
    'enum',
  );
  c.wrong('cop-status-empty', 'an empty copStatus is not null', payout, '/copStatus', '', 'enum');
  c.missing(
    'missing-cop-status',
    'copStatus is "or null": present with null, not absent',
    payout,
    '/copStatus',
  );
  c.missing(
    'missing-status-reason',
    'statusReason is "or null": present with null, not absent',
    payout,
    '/statusReason',
  );
  c.missing('missing-status', 'status missing', payout, '/status');
  c.wrong(
    'amount-string',
    'string where the spec has a number',
    payout,
    '/amount',
    '125.50',
    'type',
  );
  c.wrong(
    'reference-number',
    'number where the spec has a string',
    payout,
    '/reference',
    1001,
    'type',
  );
  c.wrong(
    'tracing-id-not-hex',
    'tracingId is hexadecimal',
    payout,
    '/tracingId',
    'trace-4bf9',
    'pattern',
  );
  c.wrong(
    'tracing-id-number',
    'number where the spec has a string',
    payout,
    '/tracingId',
    1234,
    'type',
  );
  c.wrong(
    'created-at-no-fraction',
    'createdAt must have fractional seconds',
    payout,
    '/createdAt',
    '2024-05-01T12:30:45Z',
    'pattern',
  );
  c.wrong(
    'created-at-no-zone',
    'createdAt must end in Z',
    payout,
    '/createdAt',
    '2024-05-01T12:30:45.123',
    'pattern',
  );
  c.wrong(
    'created-at-offset',
    'createdAt must use Z, not +00:00',
    payout,
    '/createdAt',
    '2024-05-01T12:30:45.123+00:00',
    'pattern',
  );
  c.wrong(
    'created-at-date-only',
    'createdAt is a timestamp, not a date',
    payout,
    '/createdAt',
    '2024-05-01',
    'pattern',
  );
  c.wrong(
    'created-at-number',
    'number where the spec has a string (Unix time)',
    payout,
    '/createdAt',
    1714566645123,
    'type',
  );
  c.wrong('payout-id-not-uuid', 'payoutId is a UUID', payout, '/payoutId', '12345', 'pattern');
  c.wrong(
    'source-iban-number',
    'source.iban must be a string or null',
    payout,
    '/source/iban',
    7,
    'type',
  );
  c.missing(
    'destination-missing-account-number',
    'destination.accountNumber missing',
    payout,
    '/destination/accountNumber',
  );
  c.wrong('source-null', 'source is an account object, not null', payout, '/source', null, 'type');
  c.invalid('not-an-object', 'a payout is a JSON object', [payout], [['', 'type']]);
  c.invalid(
    'several-errors',
    'every violation is reported, each at its pointer',
    edit(edit(edit(payout, '/status', 'DONE'), '/amount', '1'), '/copStatus', REMOVE),
    [
      ['/status', 'enum'],
      ['/amount', 'type'],
      ['/copStatus', 'required'],
    ],
  );
  c.invalid(
    'unknown-property',
    'the strict variant rejects unknown properties',
    { ...payout, fee: 0.2 },
    [['/fee', 'unevaluatedProperties']],
    { strict: true },
  );
  c.invalid(
    'nested-unknown-property',
    'the strict variant rejects unknown properties in source',
    edit(payout, '/source/nickname', 'ops'),
    [['/source/nickname', 'unevaluatedProperties']],
    { strict: true },
  );
  c.wrong(
    'currency-usd',
    'the strict variant allows only the shown currency GBP',
    payout,
    '/currency',
    'USD',
    'const',
    { strict: true },
  );
  return c;
}

function refundRequestCases(): Cases {
  const c = new Cases('refund-request', 'spec: Endpoints / 4. Create refund / request body');
  c.valid('amount-string', 'amount as a decimal string, as in the spec examples', refundRequest);
  c.valid('amount-integer-string', 'a decimal string without fraction', {
    ...refundRequest,
    amount: '10',
  });
  c.valid(
    'amount-number',
    'whether a JSON number is accepted is not shown: the permissive schema accepts it',
    { ...refundRequest, amount: 10.5 },
  );
  c.valid(
    'empty-object',
    'required-ness of request fields is not shown: the permissive schema requires none',
    {},
  );
  c.wrong(
    'amount-exponent',
    'a decimal string has no exponent',
    refundRequest,
    '/amount',
    '1e3',
    'pattern',
  );
  c.wrong(
    'amount-comma',
    'a decimal string uses a point, not a comma',
    refundRequest,
    '/amount',
    '10,50',
    'pattern',
  );
  c.wrong(
    'amount-spaces',
    'no spaces around the digits',
    refundRequest,
    '/amount',
    ' 10.50',
    'pattern',
  );
  c.wrong(
    'amount-boolean',
    'amount is a string (or a number)',
    refundRequest,
    '/amount',
    true,
    'type',
  );
  c.wrong(
    'payment-id-number',
    'number where the spec has a string',
    refundRequest,
    '/paymentId',
    12345,
    'type',
  );
  c.wrong(
    'payment-id-not-uuid',
    'paymentId is a UUID',
    refundRequest,
    '/paymentId',
    'pay_123',
    'pattern',
  );
  c.wrong(
    'amount-number',
    'the strict variant requires the decimal string of the examples',
    refundRequest,
    '/amount',
    10.5,
    'type',
    { strict: true },
  );
  c.wrong(
    'amount-three-decimals',
    'the strict variant allows at most two fractional digits',
    refundRequest,
    '/amount',
    '10.505',
    'pattern',
    { strict: true },
  );
  c.wrong(
    'amount-negative',
    'the strict variant has no sign',
    refundRequest,
    '/amount',
    '-1.00',
    'pattern',
    { strict: true },
  );
  c.missing(
    'missing-payment-id',
    'the strict variant requires paymentId',
    refundRequest,
    '/paymentId',
    { strict: true },
  );
  c.missing('missing-amount', 'the strict variant requires amount', refundRequest, '/amount', {
    strict: true,
  });
  c.invalid(
    'unknown-property',
    'the strict variant rejects unknown properties',
    { ...refundRequest, destination: {} },
    [['/destination', 'additionalProperties']],
    { strict: true },
  );
  return c;
}

function refundCases(): Cases {
  const c = new Cases('refund', 'spec: Resources and their fields / Refund resource');
  for (const status of refundStatuses)
    c.valid(
      `status-${kebab(status)}`,
      `status ${status}`,
      { ...refund, status },
      { source: 'spec: States and transitions / Refund statuses' },
    );
  c.valid(
    'iban-string',
    'destination iban as a string',
    edit(refund, '/refundRequestDetails/destination/iban', 'GB33BUKB20201555555555'),
  );
  c.valid('created-at-three-digits', 'createdAtUtc with three fractional digits', {
    ...refund,
    createdAtUtc: '2024-05-02T09:15:00.123',
  });
  c.valid('unknown-property', 'an added property is accepted (the service may add fields)', {
    ...refund,
    note: 'x',
  });
  c.wrong(
    'status-awaiting-commit',
    'AWAITING_COMMIT is a payout status, not a refund status',
    refund,
    '/status',
    'AWAITING_COMMIT',
    'enum',
  );
  c.wrong(
    'created-at-with-z',
    'createdAtUtc has no zone suffix',
    refund,
    '/createdAtUtc',
    '2024-05-02T09:15:00.1234567Z',
    'pattern',
  );
  c.wrong(
    'created-at-no-fraction',
    'createdAtUtc has fractional seconds',
    refund,
    '/createdAtUtc',
    '2024-05-02T09:15:00',
    'pattern',
  );
  c.wrong(
    'amount-string',
    'the response amount is a number (the request sends a string)',
    refund,
    '/refundRequestDetails/amount',
    '10.50',
    'type',
  );
  c.wrong(
    'refund-payment-id-not-uuid',
    'refundPaymentId is a UUID',
    refund,
    '/refundPaymentId',
    'rf-1',
    'pattern',
  );
  c.wrong(
    'currency-number',
    'number where the spec has a string',
    refund,
    '/refundRequestDetails/currency',
    826,
    'type',
  );
  c.missing(
    'destination-missing-iban',
    'destination iban is "string or null": present',
    refund,
    '/refundRequestDetails/destination/iban',
  );
  c.missing(
    'missing-refund-request-details',
    'refundRequestDetails missing',
    refund,
    '/refundRequestDetails',
  );
  c.invalid(
    'nested-unknown-property',
    'the strict variant rejects unknown properties at every level',
    edit(refund, '/refundRequestDetails/destination/bic', 'X'),
    [['/refundRequestDetails/destination/bic', 'unevaluatedProperties']],
    { strict: true },
  );
  return c;
}

function errorCases(): Cases {
  const c = new Cases('error', 'spec: Errors');
  c.valid(
    'refund-not-settled',
    'the known case: 422 UNPROCESSABLE_ENTITY naming the payment status',
    errorBody,
  );
  c.valid('server-error', 'a 5xx error body', {
    ...errorBody,
    statusCode: 500,
    statusName: 'INTERNAL_SERVER_ERROR',
    errorMessage: 'Internal error',
  });
  c.wrong(
    'status-code-string',
    'string where the spec has an integer',
    errorBody,
    '/statusCode',
    '422',
    'type',
  );
  c.wrong(
    'status-code-fraction',
    'statusCode is an integer',
    errorBody,
    '/statusCode',
    422.5,
    'type',
  );
  c.wrong(
    'status-code-success',
    'an error body carries a 4xx or 5xx status',
    errorBody,
    '/statusCode',
    200,
    'minimum',
  );
  c.missing('missing-trace-id', 'traceId missing', errorBody, '/traceId');
  c.wrong(
    'error-message-null',
    'errorMessage is a string',
    errorBody,
    '/errorMessage',
    null,
    'type',
  );
  c.wrong(
    'status-name-lower-case',
    'the strict variant uses the upper-case form of the example',
    errorBody,
    '/statusName',
    'Unprocessable Entity',
    'pattern',
    { strict: true },
  );
  return c;
}

function paymentWebhookCases(): Cases {
  const c = new Cases('payment-webhook', 'spec: Events / Payment webhook payload');
  for (const status of paymentWebhookStatuses) {
    const errorDescription = status === 'FAILED' ? 'Payment rejected by the payer bank' : null;
    c.valid(`status-${kebab(status)}`, `paymentStatus ${status}`, {
      ...paymentWebhook,
      paymentStatus: status,
      errorDescription,
    });
  }
  const minimal = {
    ...paymentWebhook,
    paymentRefundData: null,
    paymentRequest: { amount: 42, currency: 'GBP' },
  } as Record<string, unknown>;
  delete minimal['merchantPaymentId'];
  delete minimal['paymentMetadata'];
  c.valid(
    'minimal',
    'optional fields absent (merchantPaymentId, paymentRequest.reference, paymentMetadata), paymentRefundData null',
    minimal,
  );
  c.valid('refund-data-empty', 'accountHolderName and accountIdentifications are optional', {
    ...paymentWebhook,
    paymentRefundData: {},
  });
  c.valid('external', 'isExternal true (manual bank transfer)', {
    ...paymentWebhook,
    isExternal: true,
  });
  c.valid(
    'unknown-properties',
    'receivers must ignore unknown properties, at every level',
    edit({ ...paymentWebhook, newField: { a: 1 } }, '/paymentRequest/channel', 'web'),
  );
  c.wrong(
    'status-awaiting-authorization',
    'no payment webhook is sent for AWAITING_AUTHORIZATION',
    paymentWebhook,
    '/paymentStatus',
    'AWAITING_AUTHORIZATION',
    'enum',
  );
  c.wrong(
    'is-external-string',
    'isExternal is a boolean',
    paymentWebhook,
    '/isExternal',
    'false',
    'type',
  );
  c.wrong(
    'amount-string',
    'string where the spec has a number',
    paymentWebhook,
    '/paymentRequest/amount',
    '42.00',
    'type',
  );
  c.wrong(
    'identification-type-unknown',
    'accountIdentifications type is ACCOUNT_NUMBER or SORT_CODE',
    paymentWebhook,
    '/paymentRefundData/accountIdentifications/0/type',
    'IBAN',
    'enum',
  );
  c.wrong(
    'identification-number-number',
    'number where the spec has a string',
    paymentWebhook,
    '/paymentRefundData/accountIdentifications/1/number',
    300000,
    'type',
  );
  c.missing(
    'missing-error-description',
    'errorDescription is "or null": present',
    paymentWebhook,
    '/errorDescription',
  );
  c.missing(
    'missing-currency',
    'paymentRequest.currency missing',
    paymentWebhook,
    '/paymentRequest/currency',
  );
  c.wrong(
    'refund-data-string',
    'paymentRefundData is an object or null',
    paymentWebhook,
    '/paymentRefundData',
    'John Payer',
    'type',
  );
  c.wrong(
    'payment-id-not-uuid',
    'paymentId is a UUID',
    paymentWebhook,
    '/paymentId',
    'p-1',
    'pattern',
  );
  c.invalid(
    'unknown-property',
    'the strict variant (what the reference service sends) has no unknown properties',
    { ...paymentWebhook, newField: 1 },
    [['/newField', 'unevaluatedProperties']],
    { strict: true },
  );
  c.valid(
    'metadata-free',
    'the strict variant leaves paymentMetadata free',
    { ...paymentWebhook, paymentMetadata: { any: { nested: [1, 'x'] } } },
    { strict: true },
  );
  return c;
}

function payoutWebhookCases(): Cases {
  const c = new Cases('payout-webhook', 'spec: Events / Payout webhook payload');
  for (const status of payoutWebhookStatuses)
    c.valid(`status-${kebab(status)}`, `payoutStatus ${status}`, {
      ...payoutWebhook,
      payoutStatus: status,
    });
  c.valid(
    'event-time-no-fraction',
    'eventTimeUtc without fractional seconds (not shown whether present)',
    { ...payoutWebhook, eventTimeUtc: '2024-05-01T12:31:02Z' },
  );
  c.valid(
    'event-time-no-zone',
    'eventTimeUtc without a zone designator (not shown whether present; UTC by name)',
    { ...payoutWebhook, eventTimeUtc: '2024-05-01T12:31:02.456' },
  );
  c.valid('event-time-utc-offset', 'eventTimeUtc with +00:00', {
    ...payoutWebhook,
    eventTimeUtc: '2024-05-01T12:31:02+00:00',
  });
  c.valid('status-description-text', 'payoutStatusDescription with text', {
    ...payoutWebhook,
    payoutStatus: 'FAILED',
    payoutStatusDescription: 'Beneficiary account closed',
  });
  c.valid('delivery-attempt-3', 'a later delivery attempt', {
    ...payoutWebhook,
    payoutWebhookDeliveryAttempt: 3,
  });
  c.valid(
    'unknown-properties',
    'receivers must ignore unknown properties, at every level',
    edit({ ...payoutWebhook, fee: 0 }, '/destination/iban', null),
  );
  c.wrong(
    'status-awaiting-commit',
    'the payout webhook status list does not include AWAITING_COMMIT',
    payoutWebhook,
    '/payoutStatus',
    'AWAITING_COMMIT',
    'enum',
  );
  c.wrong(
    'event-time-other-offset',
    'eventTimeUtc is UTC: +01:00 is not',
    payoutWebhook,
    '/eventTimeUtc',
    '2024-05-01T13:31:02+01:00',
    'pattern',
  );
  c.wrong(
    'event-time-date-only',
    'eventTimeUtc is a timestamp',
    payoutWebhook,
    '/eventTimeUtc',
    '2024-05-01',
    'pattern',
  );
  c.wrong(
    'event-time-number',
    'number where the spec has a string',
    payoutWebhook,
    '/eventTimeUtc',
    1714566662,
    'type',
  );
  c.wrong(
    'delivery-attempt-negative',
    'the delivery attempt counter starts at 0',
    payoutWebhook,
    '/payoutWebhookDeliveryAttempt',
    -1,
    'minimum',
  );
  c.wrong(
    'delivery-attempt-fraction',
    'the delivery attempt counter is an integer',
    payoutWebhook,
    '/payoutWebhookDeliveryAttempt',
    1.5,
    'type',
  );
  c.wrong(
    'delivery-attempt-string',
    'string where the spec has an integer',
    payoutWebhook,
    '/payoutWebhookDeliveryAttempt',
    '0',
    'type',
  );
  c.wrong(
    'amount-string',
    'string where the spec has a number',
    payoutWebhook,
    '/payoutAmount',
    '125.50',
    'type',
  );
  c.missing(
    'destination-missing-name',
    'destination.name missing',
    payoutWebhook,
    '/destination/name',
  );
  c.missing(
    'missing-status-description',
    'payoutStatusDescription "may be empty" but is present',
    payoutWebhook,
    '/payoutStatusDescription',
  );
  c.invalid(
    'unknown-property',
    'the strict variant (what the reference service sends) has no unknown properties',
    { ...payoutWebhook, fee: 0 },
    [['/fee', 'unevaluatedProperties']],
    { strict: true },
  );
  c.wrong(
    'event-time-no-fraction',
    'the strict variant uses the createdAt form (fractional seconds and Z)',
    payoutWebhook,
    '/eventTimeUtc',
    '2024-05-01T12:31:02Z',
    'pattern',
    { strict: true },
  );
  return c;
}

function refundWebhookCases(): Cases {
  const c = new Cases('refund-webhook', 'spec: Events / Refund webhook payload');
  for (const status of refundStatuses)
    c.valid(`status-${kebab(status)}`, `refundStatus ${status}`, {
      ...refundWebhook,
      refundStatus: status,
    });
  c.valid(
    'merchant-payment-id-null',
    'refundedMerchantPaymentId null: what it holds for a payment without merchantPaymentId is not shown',
    { ...refundWebhook, refundedMerchantPaymentId: null },
  );
  c.valid(
    'merchant-payment-id-absent',
    'refundedMerchantPaymentId absent: not shown, accepted by the permissive schema',
    edit(refundWebhook, '/refundedMerchantPaymentId', REMOVE),
  );
  c.valid(
    'unknown-properties',
    'receivers must ignore unknown properties, at every level',
    edit({ ...refundWebhook, fee: 0 }, '/destination/iban', null),
  );
  c.wrong(
    'status-awaiting-commit',
    'AWAITING_COMMIT is not a refund status',
    refundWebhook,
    '/refundStatus',
    'AWAITING_COMMIT',
    'enum',
  );
  c.wrong(
    'amount-string',
    'string where the spec has a number',
    refundWebhook,
    '/refundAmount',
    '10.50',
    'type',
  );
  c.wrong(
    'payment-amount-string',
    'string where the spec has a number',
    refundWebhook,
    '/refundedPaymentAmount',
    '42',
    'type',
  );
  c.wrong(
    'refund-id-number',
    'number where the spec has a string',
    refundWebhook,
    '/refundId',
    1,
    'type',
  );
  c.wrong(
    'merchant-payment-id-number',
    'number where the spec has a string',
    refundWebhook,
    '/refundedMerchantPaymentId',
    10001,
    'type',
  );
  c.wrong(
    'event-time-bad-form',
    'eventTimeUtc is an ISO 8601 timestamp',
    refundWebhook,
    '/eventTimeUtc',
    '02/05/2024 09:16',
    'pattern',
  );
  c.missing('missing-refund-status', 'refundStatus missing', refundWebhook, '/refundStatus');
  c.missing(
    'missing-delivery-attempt',
    'refundWebhookDeliveryAttempt missing',
    refundWebhook,
    '/refundWebhookDeliveryAttempt',
  );
  c.wrong(
    'merchant-payment-id-null',
    'the strict variant requires a string',
    refundWebhook,
    '/refundedMerchantPaymentId',
    null,
    'type',
    { strict: true },
  );
  c.invalid(
    'unknown-property',
    'the strict variant (what the reference service sends) has no unknown properties',
    edit(refundWebhook, '/destination/iban', null),
    [['/destination/iban', 'unevaluatedProperties']],
    { strict: true },
  );
  return c;
}

const builders: { readonly [K in PayloadKind]: () => Cases } = {
  'payout-create-request': payoutCreateRequestCases,
  'payout-destination': payoutDestinationCases,
  payout: payoutCases,
  account: accountCases,
  'refund-request': refundRequestCases,
  refund: refundCases,
  error: errorCases,
  'payment-webhook': paymentWebhookCases,
  'payout-webhook': payoutWebhookCases,
  'refund-webhook': refundWebhookCases,
};

/** Every payload vector file, by kind, as the generator writes it. */
export function buildPayloadVectors(): { readonly [K in PayloadKind]: PayloadVectorFile } {
  const out = {} as Record<PayloadKind, PayloadVectorFile>;
  for (const kind of payloadKinds) {
    out[kind] = {
      kind,
      schema: payloadSchemaId(kind),
      strictSchema: payloadSchemaId(kind, { strict: true }),
      generatedBy: GENERATED_BY,
      cases: builders[kind]().list,
    };
  }
  return out;
}

/** The file text of one vector file (2-space JSON and a final newline). */
export function payloadVectorText(file: PayloadVectorFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

export const payloadVectorsDir = fileURLToPath(new URL('./', import.meta.url));

/** Writes vectors/payloads/<kind>.json for every kind. */
export function writePayloadVectors(): number {
  let count = 0;
  for (const file of Object.values(buildPayloadVectors())) {
    writeFileSync(`${payloadVectorsDir}${file.kind}.json`, payloadVectorText(file));
    count += file.cases.length;
  }
  return count;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = writePayloadVectors();
  process.stdout.write(
    `wrote ${payloadKinds.length} files, ${count} cases, to vectors/payloads/\n`,
  );
}
