// Payout and refund webhooks compared member by member with the resource they announce (spec: Events, Payout webhook
// payload and Refund webhook payload; conformance/spec-model/webhooks.ts): each member the spec's table shows fails
// when it differs and passes when it matches, and every form the spec leaves open passes (another member order,
// unknown members, another notation of the same number, a UUID in the other case).
import { describe, expect, it } from 'vitest';
import { toDecimal } from '../src/rules/money.js';
import {
  createSpecState,
  judgePayoutWebhook,
  judgeRefundWebhook,
  modelRefundOf,
  observeCreatePayout,
  observeWebhooks,
  payoutWebhookMembers,
  refundWebhookMembers,
  type AskedPayout,
  type ModelPayment,
  type ModelPayout,
  type ModelRefund,
} from '../conformance/spec-model/index.js';

const APP = '3f2b8c1e-5d4a-4b6e-9c7f-1a2b3c4d5e6f';
const OTHER_APP = '9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4';
const PAYOUT_ID = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';

const asked: AskedPayout = {
  amount: '1234.5',
  reference: 'INV 42',
  copKey: 'FULL_MATCH',
  destination: {
    destinationType: 'toAccount',
    accountType: 'SCAN',
    holderName: 'Jane Payee',
    accountNumber: '12345678',
    sortCode: '040004',
    iban: null,
  },
};

/** The create answer's Payout resource (as the reference service writes it). */
const payoutResource = {
  applicationId: APP,
  payoutId: PAYOUT_ID,
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'IN_PROGRESS',
  amount: 1234.5,
  reference: 'INV 42',
  currency: 'GBP',
  source: { type: 'SCAN', name: 'Merchant', accountNumber: '40000000', sortCode: '040075' },
  destination: {
    type: 'SCAN',
    name: 'Jane Payee',
    accountNumber: '12345678',
    sortCode: '040004',
    iban: null,
    bic: null,
  },
  tracingId: 'abc123',
  copStatus: 'FULL_MATCH',
  statusReason: null,
};

const payout: ModelPayout = {
  asked,
  payoutId: PAYOUT_ID,
  state: 'EXECUTED',
  copStatus: 'FULL_MATCH',
  resource: payoutResource,
  createdAt: 0,
};

/** The payout webhook payload that matches the payout, member for member (spec: Payout webhook payload). */
const payoutHook = (): Record<string, unknown> => ({
  eventTimeUtc: '2026-01-01T00:00:01.000Z',
  applicationId: APP,
  payoutId: PAYOUT_ID,
  payoutAmount: 1234.5,
  payoutCurrency: 'GBP',
  payoutReference: 'INV 42',
  payoutStatus: 'IN_PROGRESS',
  payoutStatusDescription: 'Payment is in progress',
  payoutWebhookDeliveryAttempt: 0,
  destination: { type: 'SCAN', name: 'Jane Payee', accountNumber: '12345678', sortCode: '040004' },
});

/** A copy of `payload` with the member at `path` (dotted) set to `value`. */
function withMember(
  payload: Record<string, unknown>,
  path: string,
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(payload);
  const keys = path.split('.');
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[keys.at(-1)!] = value;
  return copy;
}

/** JSON text with the members in reverse order at every level (a sender's serialiser may order them any way). */
function reversedJson(v: unknown): string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return JSON.stringify(v);
  const members = Object.entries(v).reverse();
  return `{${members.map(([k, x]) => `${JSON.stringify(k)}:${reversedJson(x)}`).join(',')}}`;
}

describe('Payout webhook payload, member by member against the payout it announces', () => {
  it('the matching payload passes', () => {
    expect(judgePayoutWebhook(payout, payoutHook())).toBeUndefined();
  });

  const differing: ReadonlyArray<readonly [string, unknown, string]> = [
    ['applicationId', OTHER_APP, APP],
    ['payoutId', '11111111-2222-4333-8444-555555555555', PAYOUT_ID],
    ['payoutAmount', 1234, '1234.50'],
    ['payoutAmount', '1234.51', '1234.50'],
    ['payoutCurrency', 'EUR', 'GBP'],
    ['payoutReference', 'INV42', 'INV 42'],
    ['destination.type', 'IBAN', 'SCAN'],
    ['destination.name', 'J Payee', 'Jane Payee'],
    ['destination.accountNumber', '12345679', '12345678'],
    ['destination.sortCode', '040005', '040004'],
  ];
  it.each(differing)('%s %j: fails WEBHOOK-PAYOUT-PAYLOAD naming it', (member, value, want) => {
    const j = judgePayoutWebhook(payout, withMember(payoutHook(), member, value));
    expect(j?.requirement).toBe('WEBHOOK-PAYOUT-PAYLOAD');
    expect(j?.message).toContain(`carries another ${member} than the payout`);
    expect(j?.expected).toBe(`${member} ${want}`);
    expect(j?.received).toBe(
      `${member} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  });
  it('a member the spec shows that is missing fails', () => {
    const hook = payoutHook();
    delete hook['applicationId'];
    expect(judgePayoutWebhook(payout, hook)?.expected).toBe(`applicationId ${APP}`);
  });
  it('compares every member the spec shows whose value the payout has, and only those', () => {
    expect(payoutWebhookMembers(payout, payoutHook()).map(([field]) => field)).toEqual([
      'applicationId',
      'payoutId',
      'payoutAmount',
      'payoutCurrency',
      'payoutReference',
      'destination.type',
      'destination.name',
      'destination.accountNumber',
      'destination.sortCode',
    ]);
    // No create answer kept: what only the resource shows (applicationId, currency, destination.type) is not compared.
    const { resource: _, ...unseen } = payout;
    expect(payoutWebhookMembers(unseen, payoutHook()).map(([field]) => field)).toEqual([
      'payoutId',
      'payoutAmount',
      'payoutReference',
      'destination.name',
      'destination.accountNumber',
      'destination.sortCode',
    ]);
    expect(judgePayoutWebhook(unseen, withMember(payoutHook(), 'applicationId', OTHER_APP))).toBe(
      undefined,
    );
  });
  it('the other permitted forms pass: member order, unknown members, number notation, UUID case, open members', () => {
    const forms = [
      JSON.parse(reversedJson(payoutHook())),
      JSON.parse(
        JSON.stringify(payoutHook()).replace('"payoutAmount":1234.5', '"payoutAmount":1234.50'),
      ),
      JSON.parse(
        JSON.stringify(payoutHook()).replace('"payoutAmount":1234.5', '"payoutAmount":1.2345e3'),
      ),
      { ...payoutHook(), 'x-extension': { any: true }, payoutFee: 0 },
      withMember(payoutHook(), 'destination.iban', 'GB00TEST12345678901234'),
      withMember(payoutHook(), 'applicationId', APP.toUpperCase()),
      withMember(payoutHook(), 'payoutId', PAYOUT_ID.toUpperCase()),
      withMember(payoutHook(), 'payoutStatusDescription', ''),
      withMember(payoutHook(), 'eventTimeUtc', '2026-01-01T00:00:01Z'),
      withMember(payoutHook(), 'payoutWebhookDeliveryAttempt', 3),
      withMember(payoutHook(), 'payoutStatus', 'PROCESSED'),
    ];
    for (const form of forms)
      expect(judgePayoutWebhook(payout, form), JSON.stringify(form)).toBe(undefined);
  });
  it('through the model: the create answer is kept, and a later webhook naming another application fails', () => {
    const state = createSpecState({ webhookWaitMs: 1000 });
    const created = observeCreatePayout(
      state,
      asked,
      { accepted: true, body: payoutResource, outcome: '201' },
      0,
    );
    expect(created.judgements).toEqual([]);
    const first = observeWebhooks(state, [{ kind: 'payout', body: payoutHook() }]);
    expect(first.judgements).toEqual([]);
    expect(first.judged).toContain('WEBHOOK-PAYOUT-PAYLOAD');
    const later = withMember(
      withMember(payoutHook(), 'payoutStatus', 'PROCESSED'),
      'applicationId',
      OTHER_APP,
    );
    const v = observeWebhooks(state, [{ kind: 'payout', body: later }]);
    expect(v.judgements).toEqual([
      expect.objectContaining({
        requirement: 'WEBHOOK-PAYOUT-PAYLOAD',
        expected: `applicationId ${APP}`,
        received: `applicationId ${OTHER_APP}`,
      }),
    ]);
  });
});

const PAYMENT_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';
const REFUND_ID = 'deadbeef-5678-4abc-9def-ba9876543210';

/** The Refund resource of the create answer (as the reference service writes it). */
const refundResource = {
  refundPaymentId: REFUND_ID,
  refundedPaymentId: PAYMENT_ID,
  createdAtUtc: '2026-01-01T00:00:00.0000000',
  status: 'IN_PROGRESS',
  refundRequestDetails: {
    amount: 25.5,
    currency: 'GBP',
    reference: 'RF-0001',
    destination: {
      type: 'SCAN',
      name: 'Seed Payer 1',
      accountNumber: '20000000',
      sortCode: '200000',
      iban: null,
    },
  },
};

const payment: ModelPayment = { paymentId: PAYMENT_ID, amount: toDecimal('100.00'), refunds: [] };
const refund: ModelRefund = {
  ...modelRefundOf(refundResource, toDecimal('25.50'), 0)!,
  applicationId: APP,
};

/** The refund webhook payload that matches the refund and its payment (spec: Refund webhook payload). */
const refundHook = (): Record<string, unknown> => ({
  eventTimeUtc: '2026-01-01T00:00:01.000Z',
  applicationId: APP,
  refundedPaymentId: PAYMENT_ID,
  refundedMerchantPaymentId: 'seed-1',
  refundedPaymentAmount: 100,
  refundId: REFUND_ID,
  refundAmount: 25.5,
  refundCurrency: 'GBP',
  refundReference: 'RF-0001',
  refundStatus: 'IN_PROGRESS',
  refundStatusDescription: '',
  refundWebhookDeliveryAttempt: 0,
  destination: {
    type: 'SCAN',
    accountNumber: '20000000',
    sortCode: '200000',
    name: 'Seed Payer 1',
  },
});

describe('Refund webhook payload, member by member against the refund and the payment it refunds', () => {
  it('the refund as the model keeps it comes from its Refund resource', () => {
    expect(modelRefundOf(refundResource, toDecimal('25.50'), 7)).toEqual({
      refundId: REFUND_ID,
      amount: toDecimal('25.50'),
      reference: 'RF-0001',
      currency: 'GBP',
      destination: refundResource.refundRequestDetails.destination,
      createdAt: 7,
    });
    expect(
      modelRefundOf({ ...refundResource, applicationId: APP }, toDecimal('1'), 0)?.applicationId,
    ).toBe(APP);
    expect(modelRefundOf({ status: 'IN_PROGRESS' }, toDecimal('1'), 0)).toBeUndefined();
  });
  it('the matching payload passes', () => {
    expect(judgeRefundWebhook(payment, refund, refundHook())).toBeUndefined();
  });

  const differing: ReadonlyArray<readonly [string, unknown, string]> = [
    ['applicationId', OTHER_APP, APP],
    ['refundedPaymentId', '11111111-2222-4333-8444-555555555555', PAYMENT_ID],
    ['refundedPaymentAmount', 25.5, '100.00'],
    ['refundId', '11111111-2222-4333-8444-555555555555', REFUND_ID],
    ['refundAmount', 25.05, '25.50'],
    ['refundCurrency', 'EUR', 'GBP'],
    ['refundReference', 'RF-0002', 'RF-0001'],
    ['destination.type', 'IBAN', 'SCAN'],
    ['destination.accountNumber', '20000001', '20000000'],
    ['destination.sortCode', '200001', '200000'],
    ['destination.name', 'Seed Payer 2', 'Seed Payer 1'],
  ];
  it.each(differing)('%s %j: fails WEBHOOK-REFUND-PAYLOAD naming it', (member, value, want) => {
    const j = judgeRefundWebhook(payment, refund, withMember(refundHook(), member, value));
    expect(j?.requirement).toBe('WEBHOOK-REFUND-PAYLOAD');
    expect(j?.message).toContain(`carries another ${member} than the refund`);
    expect(j?.expected).toBe(`${member} ${want}`);
    expect(j?.received).toBe(
      `${member} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  });
  it('compares every member the spec shows whose value the model has; the application only where it is known', () => {
    expect(refundWebhookMembers(payment, refund, refundHook()).map(([field]) => field)).toEqual([
      'applicationId',
      'refundedPaymentId',
      'refundedPaymentAmount',
      'refundId',
      'refundAmount',
      'refundCurrency',
      'refundReference',
      'destination.type',
      'destination.accountNumber',
      'destination.sortCode',
      'destination.name',
    ]);
    const { applicationId: _, ...unknownApp } = refund;
    expect(
      judgeRefundWebhook(payment, unknownApp, withMember(refundHook(), 'applicationId', OTHER_APP)),
    ).toBeUndefined();
  });
  it('the other permitted forms pass: member order, unknown members, number notation, UUID case, open members', () => {
    const forms = [
      JSON.parse(reversedJson(refundHook())),
      JSON.parse(
        JSON.stringify(refundHook()).replace(
          '"refundedPaymentAmount":100',
          '"refundedPaymentAmount":100.00',
        ),
      ),
      JSON.parse(
        JSON.stringify(refundHook()).replace('"refundAmount":25.5', '"refundAmount":2.55E1'),
      ),
      { ...refundHook(), 'x-extension': 'GB', refundFee: null },
      withMember(refundHook(), 'destination.iban', null),
      withMember(refundHook(), 'refundId', REFUND_ID.toUpperCase()),
      withMember(refundHook(), 'refundedPaymentId', PAYMENT_ID.toUpperCase()),
      withMember(refundHook(), 'refundedMerchantPaymentId', ''),
      withMember(refundHook(), 'refundStatus', 'RETURNED'),
      withMember(refundHook(), 'refundStatusDescription', 'Payment was processed'),
      withMember(refundHook(), 'refundWebhookDeliveryAttempt', 2),
    ];
    for (const form of forms)
      expect(judgeRefundWebhook(payment, refund, form), JSON.stringify(form)).toBeUndefined();
  });
});
