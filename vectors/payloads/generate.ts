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

/** Options a case may carry: the strict schema variant, a source other than the kind's section. */
interface CaseOptions {
  readonly strict?: boolean;
  readonly source?: string;
}

/**
 * One case as a row of a kind's table, named by what it does: `valid` / `invalid` (the payload as given, with the
 * errors expected), `wrong` (the base with `pointer` set to `value`: `keyword` there) or `missing` (the base without
 * `pointer`: `required` there). The property holding the slug says which.
 */
type CaseRow = CaseOptions &
  (
    | { readonly valid: string; readonly description: string; readonly payload: Json }
    | {
        readonly invalid: string;
        readonly description: string;
        readonly payload: Json;
        readonly errors: readonly (readonly [string, string])[];
      }
    | {
        readonly wrong: string;
        readonly description: string;
        readonly base: Json;
        readonly pointer: string;
        readonly value: Json;
        readonly keyword: string;
      }
    | {
        readonly missing: string;
        readonly description: string;
        readonly base: Json;
        readonly pointer: string;
      }
  );

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

  /** Adds each row of a kind's table, in order. */
  addAll(rows: readonly CaseRow[]): this {
    for (const row of rows) this.add(row);
    return this;
  }

  add(row: CaseRow): void {
    const options: CaseOptions = {
      ...(row.strict !== undefined ? { strict: row.strict } : {}),
      ...(row.source !== undefined ? { source: row.source } : {}),
    };
    if ('valid' in row) this.valid(row.valid, row.description, row.payload, options);
    else if ('invalid' in row)
      this.invalid(row.invalid, row.description, row.payload, row.errors, options);
    else if ('wrong' in row)
      this.wrong(
        row.wrong,
        row.description,
        row.base,
        row.pointer,
        row.value,
        row.keyword,
        options,
      );
    else this.missing(row.missing, row.description, row.base, row.pointer, options);
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
const ACCOUNT_ROWS: readonly CaseRow[] = [
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
  {
    valid: 'unknown-property',
    description: 'an added property is accepted (the service may add fields)',
    payload: {
      ...account,
      nickname: 'ops',
    },
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant rejects unknown properties',
    payload: { ...account, nickname: 'ops' },
    errors: [['/nickname', 'unevaluatedProperties']],
    strict: true,
  },
];

function accountCases(): Cases {
  return new Cases('account', 'spec: Resources and their fields / Account object').addAll(
    ACCOUNT_ROWS,
  );
}

const PAYOUT_DESTINATION_ROWS: readonly CaseRow[] = [
  {
    valid: 'to-account-scan',
    description: 'destinationType toAccount, accountType SCAN, iban null (values shown)',
    payload: destination,
  },
  {
    valid: 'empty-object',
    description:
      'required-ness of request fields is not shown: the permissive schema requires none',
    payload: {},
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant rejects unknown properties',
    payload: { ...destination, bic: 'BUKBGB22' },
    errors: [['/bic', 'additionalProperties']],
    strict: true,
  },
];

function payoutDestinationCases(): Cases {
  return new Cases(
    'payout-destination',
    'spec: Resources and their fields / Payout destination',
  ).addAll(PAYOUT_DESTINATION_ROWS);
}

const PAYOUT_CREATE_REQUEST_ROWS: readonly CaseRow[] = [
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
  {
    valid: 'empty-object',
    description:
      'required-ness of request fields is not shown: the permissive schema requires none',
    payload: {},
  },
  {
    valid: 'unknown-property',
    description:
      'whether unknown request properties are rejected is not shown: the permissive schema accepts them',
    payload: { ...createRequest, note: 'x' },
  },
  {
    wrong: 'amount-string',
    description: 'string where the spec has a number (amount is "number (decimal)")',
    base: createRequest,
    pointer: '/amount',
    value: '125.50',
    keyword: 'type',
  },
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
  {
    wrong: 'application-id-not-uuid',
    description: 'applicationId is a UUID',
    base: createRequest,
    pointer: '/applicationId',
    value: 'app-1',
    keyword: 'pattern',
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant rejects unknown properties',
    payload: { ...createRequest, note: 'x' },
    errors: [['/note', 'additionalProperties']],
    strict: true,
  },
  {
    valid: 'without-do-not-commit',
    description: 'the strict variant keeps doNotCommitOnCoPMismatch optional',
    payload: edit(createRequest, '/doNotCommitOnCoPMismatch', REMOVE),
    strict: true,
  },
];

function payoutCreateRequestCases(): Cases {
  return new Cases(
    'payout-create-request',
    'spec: Endpoints / 1. Create payout / request body',
  ).addAll(PAYOUT_CREATE_REQUEST_ROWS);
}

const PAYOUT_ROWS: readonly CaseRow[] = [
  ...payoutStatuses.map((status) => {
    const copStatus =
      status === 'AWAITING_COMMIT' || status === 'CANCELLED' ? 'PARTIAL_MATCH' : 'FULL_MATCH';
    const statusReason = status === 'CANCELLED' ? PAYOUT_CANCEL_STATUS_REASON : null;
    return {
      valid: `status-${kebab(status)}`,
      description: `status ${status}`,
      payload: { ...payout, status, copStatus, statusReason },
      source: 'spec: States and transitions / Payout statuses',
    };
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
  {
    valid: 'created-at-seven-digits',
    description: 'createdAt with seven fractional digits (the count is not shown)',
    payload: { ...payout, createdAt: '2024-05-01T12:30:45.1234567Z' },
  },
  {
    valid: 'tracing-id-upper-case',
    description: 'tracingId hexadecimal in upper case (case not shown)',
    payload: {
      ...payout,
      tracingId: '4BF92F3577B34DA6',
    },
  },
  {
    valid: 'unknown-property',
    description: 'an added property is accepted (the service may add fields)',
    payload: {
      ...payout,
      fee: 0.2,
    },
  },
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
  {
    wrong: 'amount-string',
    description: 'string where the spec has a number',
    base: payout,
    pointer: '/amount',
    value: '125.50',
    keyword: 'type',
  },
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
  {
    wrong: 'created-at-no-fraction',
    description: 'createdAt must have fractional seconds',
    base: payout,
    pointer: '/createdAt',
    value: '2024-05-01T12:30:45Z',
    keyword: 'pattern',
  },
  {
    wrong: 'created-at-no-zone',
    description: 'createdAt must end in Z',
    base: payout,
    pointer: '/createdAt',
    value: '2024-05-01T12:30:45.123',
    keyword: 'pattern',
  },
  {
    wrong: 'created-at-offset',
    description: 'createdAt must use Z, not +00:00',
    base: payout,
    pointer: '/createdAt',
    value: '2024-05-01T12:30:45.123+00:00',
    keyword: 'pattern',
  },
  {
    wrong: 'created-at-date-only',
    description: 'createdAt is a timestamp, not a date',
    base: payout,
    pointer: '/createdAt',
    value: '2024-05-01',
    keyword: 'pattern',
  },
  {
    wrong: 'created-at-number',
    description: 'number where the spec has a string (Unix time)',
    base: payout,
    pointer: '/createdAt',
    value: 1714566645123,
    keyword: 'type',
  },
  {
    wrong: 'payout-id-not-uuid',
    description: 'payoutId is a UUID',
    base: payout,
    pointer: '/payoutId',
    value: '12345',
    keyword: 'pattern',
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant rejects unknown properties',
    payload: { ...payout, fee: 0.2 },
    errors: [['/fee', 'unevaluatedProperties']],
    strict: true,
  },
  {
    invalid: 'nested-unknown-property',
    description: 'the strict variant rejects unknown properties in source',
    payload: edit(payout, '/source/nickname', 'ops'),
    errors: [['/source/nickname', 'unevaluatedProperties']],
    strict: true,
  },
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

function payoutCases(): Cases {
  return new Cases('payout', 'spec: Resources and their fields / Payout resource').addAll(
    PAYOUT_ROWS,
  );
}

const REFUND_REQUEST_ROWS: readonly CaseRow[] = [
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
  {
    valid: 'empty-object',
    description:
      'required-ness of request fields is not shown: the permissive schema requires none',
    payload: {},
  },
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
  {
    wrong: 'payment-id-not-uuid',
    description: 'paymentId is a UUID',
    base: refundRequest,
    pointer: '/paymentId',
    value: 'pay_123',
    keyword: 'pattern',
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant rejects unknown properties',
    payload: { ...refundRequest, destination: {} },
    errors: [['/destination', 'additionalProperties']],
    strict: true,
  },
];

function refundRequestCases(): Cases {
  return new Cases('refund-request', 'spec: Endpoints / 4. Create refund / request body').addAll(
    REFUND_REQUEST_ROWS,
  );
}

const REFUND_ROWS: readonly CaseRow[] = [
  ...refundStatuses.map((status) => ({
    valid: `status-${kebab(status)}`,
    description: `status ${status}`,
    payload: { ...refund, status },
    source: 'spec: States and transitions / Refund statuses',
  })),
  {
    valid: 'iban-string',
    description: 'destination iban as a string',
    payload: edit(refund, '/refundRequestDetails/destination/iban', 'GB33BUKB20201555555555'),
  },
  {
    valid: 'created-at-three-digits',
    description: 'createdAtUtc with three fractional digits',
    payload: {
      ...refund,
      createdAtUtc: '2024-05-02T09:15:00.123',
    },
  },
  {
    valid: 'unknown-property',
    description: 'an added property is accepted (the service may add fields)',
    payload: {
      ...refund,
      note: 'x',
    },
  },
  {
    wrong: 'status-awaiting-commit',
    description: 'AWAITING_COMMIT is a payout status, not a refund status',
    base: refund,
    pointer: '/status',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  {
    wrong: 'created-at-with-z',
    description: 'createdAtUtc has no zone suffix',
    base: refund,
    pointer: '/createdAtUtc',
    value: '2024-05-02T09:15:00.1234567Z',
    keyword: 'pattern',
  },
  {
    wrong: 'created-at-no-fraction',
    description: 'createdAtUtc has fractional seconds',
    base: refund,
    pointer: '/createdAtUtc',
    value: '2024-05-02T09:15:00',
    keyword: 'pattern',
  },
  {
    wrong: 'amount-string',
    description: 'the response amount is a number (the request sends a string)',
    base: refund,
    pointer: '/refundRequestDetails/amount',
    value: '10.50',
    keyword: 'type',
  },
  {
    wrong: 'refund-payment-id-not-uuid',
    description: 'refundPaymentId is a UUID',
    base: refund,
    pointer: '/refundPaymentId',
    value: 'rf-1',
    keyword: 'pattern',
  },
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
  {
    invalid: 'nested-unknown-property',
    description: 'the strict variant rejects unknown properties at every level',
    payload: edit(refund, '/refundRequestDetails/destination/bic', 'X'),
    errors: [['/refundRequestDetails/destination/bic', 'unevaluatedProperties']],
    strict: true,
  },
];

function refundCases(): Cases {
  return new Cases('refund', 'spec: Resources and their fields / Refund resource').addAll(
    REFUND_ROWS,
  );
}

const ERROR_ROWS: readonly CaseRow[] = [
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

function errorCases(): Cases {
  return new Cases('error', 'spec: Errors').addAll(ERROR_ROWS);
}

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
const PAYMENT_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...paymentWebhookStatuses.map((status) => {
    const errorDescription = status === 'FAILED' ? 'Payment rejected by the payer bank' : null;
    return {
      valid: `status-${kebab(status)}`,
      description: `paymentStatus ${status}`,
      payload: {
        ...paymentWebhook,
        paymentStatus: status,
        errorDescription,
      },
    };
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
  {
    valid: 'unknown-properties',
    description: 'receivers must ignore unknown properties, at every level',
    payload: edit({ ...paymentWebhook, newField: { a: 1 } }, '/paymentRequest/channel', 'web'),
  },
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
  {
    wrong: 'amount-string',
    description: 'string where the spec has a number',
    base: paymentWebhook,
    pointer: '/paymentRequest/amount',
    value: '42.00',
    keyword: 'type',
  },
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
  {
    wrong: 'payment-id-not-uuid',
    description: 'paymentId is a UUID',
    base: paymentWebhook,
    pointer: '/paymentId',
    value: 'p-1',
    keyword: 'pattern',
  },
  {
    invalid: 'unknown-property',
    description: 'the strict variant (what the reference service sends) has no unknown properties',
    payload: { ...paymentWebhook, newField: 1 },
    errors: [['/newField', 'unevaluatedProperties']],
    strict: true,
  },
  {
    valid: 'metadata-free',
    description: 'the strict variant leaves paymentMetadata free',
    payload: { ...paymentWebhook, paymentMetadata: { any: { nested: [1, 'x'] } } },
    strict: true,
  },
];

function paymentWebhookCases(): Cases {
  return new Cases('payment-webhook', 'spec: Events / Payment webhook payload').addAll(
    PAYMENT_WEBHOOK_ROWS,
  );
}

const PAYOUT_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...payoutWebhookStatuses.map((status) => ({
    valid: `status-${kebab(status)}`,
    description: `payoutStatus ${status}`,
    payload: {
      ...payoutWebhook,
      payoutStatus: status,
    },
  })),
  {
    valid: 'event-time-no-fraction',
    description: 'eventTimeUtc without fractional seconds (not shown whether present)',
    payload: { ...payoutWebhook, eventTimeUtc: '2024-05-01T12:31:02Z' },
  },
  {
    valid: 'event-time-no-zone',
    description: 'eventTimeUtc without a zone designator (not shown whether present; UTC by name)',
    payload: { ...payoutWebhook, eventTimeUtc: '2024-05-01T12:31:02.456' },
  },
  {
    valid: 'event-time-utc-offset',
    description: 'eventTimeUtc with +00:00',
    payload: {
      ...payoutWebhook,
      eventTimeUtc: '2024-05-01T12:31:02+00:00',
    },
  },
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
  {
    valid: 'unknown-properties',
    description: 'receivers must ignore unknown properties, at every level',
    payload: edit({ ...payoutWebhook, fee: 0 }, '/destination/iban', null),
  },
  {
    wrong: 'status-awaiting-commit',
    description: 'the payout webhook status list does not include AWAITING_COMMIT',
    base: payoutWebhook,
    pointer: '/payoutStatus',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  {
    wrong: 'event-time-other-offset',
    description: 'eventTimeUtc is UTC: +01:00 is not',
    base: payoutWebhook,
    pointer: '/eventTimeUtc',
    value: '2024-05-01T13:31:02+01:00',
    keyword: 'pattern',
  },
  {
    wrong: 'event-time-date-only',
    description: 'eventTimeUtc is a timestamp',
    base: payoutWebhook,
    pointer: '/eventTimeUtc',
    value: '2024-05-01',
    keyword: 'pattern',
  },
  {
    wrong: 'event-time-number',
    description: 'number where the spec has a string',
    base: payoutWebhook,
    pointer: '/eventTimeUtc',
    value: 1714566662,
    keyword: 'type',
  },
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
  {
    wrong: 'amount-string',
    description: 'string where the spec has a number',
    base: payoutWebhook,
    pointer: '/payoutAmount',
    value: '125.50',
    keyword: 'type',
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant (what the reference service sends) has no unknown properties',
    payload: { ...payoutWebhook, fee: 0 },
    errors: [['/fee', 'unevaluatedProperties']],
    strict: true,
  },
  {
    wrong: 'event-time-no-fraction',
    description: 'the strict variant uses the createdAt form (fractional seconds and Z)',
    base: payoutWebhook,
    pointer: '/eventTimeUtc',
    value: '2024-05-01T12:31:02Z',
    keyword: 'pattern',
    strict: true,
  },
];

function payoutWebhookCases(): Cases {
  return new Cases('payout-webhook', 'spec: Events / Payout webhook payload').addAll(
    PAYOUT_WEBHOOK_ROWS,
  );
}

const REFUND_WEBHOOK_ROWS: readonly CaseRow[] = [
  ...refundStatuses.map((status) => ({
    valid: `status-${kebab(status)}`,
    description: `refundStatus ${status}`,
    payload: {
      ...refundWebhook,
      refundStatus: status,
    },
  })),
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
  {
    valid: 'unknown-properties',
    description: 'receivers must ignore unknown properties, at every level',
    payload: edit({ ...refundWebhook, fee: 0 }, '/destination/iban', null),
  },
  {
    wrong: 'status-awaiting-commit',
    description: 'AWAITING_COMMIT is not a refund status',
    base: refundWebhook,
    pointer: '/refundStatus',
    value: 'AWAITING_COMMIT',
    keyword: 'enum',
  },
  {
    wrong: 'amount-string',
    description: 'string where the spec has a number',
    base: refundWebhook,
    pointer: '/refundAmount',
    value: '10.50',
    keyword: 'type',
  },
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
  {
    wrong: 'event-time-bad-form',
    description: 'eventTimeUtc is an ISO 8601 timestamp',
    base: refundWebhook,
    pointer: '/eventTimeUtc',
    value: '02/05/2024 09:16',
    keyword: 'pattern',
  },
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
  {
    invalid: 'unknown-property',
    description: 'the strict variant (what the reference service sends) has no unknown properties',
    payload: edit(refundWebhook, '/destination/iban', null),
    errors: [['/destination/iban', 'unevaluatedProperties']],
    strict: true,
  },
];

function refundWebhookCases(): Cases {
  return new Cases('refund-webhook', 'spec: Events / Refund webhook payload').addAll(
    REFUND_WEBHOOK_ROWS,
  );
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
