// The payload vectors' building blocks: one valid payload of each kind, written from the spec's tables, and the
// helpers the case tables vary them with.
import type {
  Account,
  ErrorBody,
  PaymentWebhook,
  Payout,
  PayoutCreateRequest,
  PayoutDestination,
  PayoutWebhook,
  Refund,
  RefundRequest,
  RefundWebhook,
} from '../../src/schemas/index.js';

// ---- building blocks from the spec's tables ----
export const APP = '6f1c2b3a-4d5e-4f60-8a71-92b3c4d5e6f7';
export const PAYOUT_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const PAYMENT_ID = '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718';
export const REFUND_ID = '2c3d4e5f-6071-4b82-9ca3-d4e5f6071829';

export const account: Account = {
  type: 'SCAN',
  name: 'Acme Trading Ltd',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
  bic: null,
};
export const payeeAccount: Account = {
  type: 'SCAN',
  name: 'Jane Doe',
  accountNumber: '87654321',
  sortCode: '200000',
  iban: null,
  bic: null,
};
export const destination: Required<PayoutDestination> = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Jane Doe',
  accountNumber: '87654321',
  sortCode: '200000',
  iban: null,
};
export const createRequest: Required<PayoutCreateRequest> = {
  applicationId: APP,
  payInAccountSelector: 'main-gbp',
  amount: 125.5,
  reference: 'INV-2024-0001',
  destination,
  doNotCommitOnCoPMismatch: true,
};
export const payout: Payout = {
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
export const refundRequest: Required<RefundRequest> = { paymentId: PAYMENT_ID, amount: '10.50' };
export const refund: Refund = {
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
export const errorBody: ErrorBody = {
  statusCode: 422,
  statusName: 'UNPROCESSABLE_ENTITY',
  errorMessage: 'Payment status is AWAITING_AUTHORIZATION; a refund requires SETTLED',
  traceId: '8d3e4c1a9b7f',
  source: 'MERCHANT',
};
export const paymentWebhook: PaymentWebhook = {
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
export const payoutWebhook: PayoutWebhook = {
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
export const refundWebhook: RefundWebhook = {
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
export type Json = unknown;

/** A deep copy of `base` with the value at a JSON pointer replaced, or removed when `value` is REMOVE. */
export const REMOVE = Symbol('remove');
export function edit(base: Json, pointer: string, value: Json | typeof REMOVE): Json {
  const copy = structuredClone(base) as Record<string, unknown>;
  const tokens = pointerTokens(pointer);
  let node: Record<string, unknown> = copy;
  for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
  const last = tokens[tokens.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

/** The value at a JSON pointer of `base`. */
export function valueAt(base: Json, pointer: string): Json {
  let node = base;
  for (const t of pointerTokens(pointer)) node = (node as Record<string, unknown>)[t];
  return node;
}

/** RFC 6901: the reference tokens of a JSON pointer, unescaped. */
function pointerTokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export const kebab = (s: string): string => s.toLowerCase().replaceAll('_', '-');
