// Webhook payloads the receiver audit sends: schema-valid payment, payout and refund events with fresh ids, in two
// serialisations (compact, and indented with decimals written as the service writes money, e.g. 10.50).
import { randomBytes, randomUUID } from 'node:crypto';
import type { PayloadKind } from '../../../src/schemas/payload-kinds.js';
import { validatePayloadText } from '../../../src/schemas/validate-payload.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../../../src/webhooks/kinds.js';

export { WEBHOOK_KINDS, type WebhookKind };

export const schemaKindOf: Readonly<Record<WebhookKind, PayloadKind>> = {
  payment: 'payment-webhook',
  payout: 'payout-webhook',
  refund: 'refund-webhook',
};

/** A decimal written exactly as given (`10.50`), where JSON.stringify would write `10.5`. */
export class Decimal {
  constructor(readonly text: string) {}
}

export type WebhookPayload = Record<string, unknown>;

/** The JSON member that carries the amount of each kind (changed by the "body changed after signing" case). */
export const amountPointer: Readonly<Record<WebhookKind, readonly string[]>> = {
  payment: ['paymentRequest', 'amount'],
  payout: ['payoutAmount'],
  refund: ['refundAmount'],
};

const MARK = '@@payconform-decimal:';

/**
 * Serialises a payload. `indent` 0 gives compact JSON with plain numbers (what `JSON.stringify` writes, so a receiver
 * that re-serialises gets the same bytes back); otherwise indented JSON with decimals written as given.
 */
export function serializePayload(payload: WebhookPayload, indent = 0): Uint8Array {
  const text = JSON.stringify(
    payload,
    (_k, v: unknown) =>
      v instanceof Decimal ? (indent === 0 ? Number(v.text) : `${MARK}${v.text}`) : v,
    indent === 0 ? undefined : indent,
  );
  return new TextEncoder().encode(
    text.replace(new RegExp(`"${MARK}(-?[0-9]+(?:\\.[0-9]+)?)"`, 'g'), '$1'),
  );
}

/** Validates the exact bytes against the kind's schema (strict too, unless unknown members are intended); throws on a defect. */
export function assertSchemaValid(
  kind: WebhookKind,
  bytes: Uint8Array,
  options: { readonly unknownMembers?: boolean } = {},
): void {
  const text = new TextDecoder().decode(bytes);
  const permissive = validatePayloadText(schemaKindOf[kind], text);
  const strict =
    options.unknownMembers === true
      ? permissive
      : validatePayloadText(schemaKindOf[kind], text, { strict: true });
  const errors = [
    ...(permissive.valid ? [] : permissive.errors),
    ...(strict === permissive || strict.valid ? [] : strict.errors),
  ];
  if (errors.length > 0)
    throw new TypeError(
      `the audit built an invalid ${kind} webhook (a payconform defect): ${errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`,
    );
}

const reference = (prefix: string): string =>
  `${prefix}${randomBytes(6).toString('hex').toUpperCase()}`;

/** A fresh, schema-valid payload of `kind` for `applicationId` (new ids every call: a new delivery). */
export function createPayload(kind: WebhookKind, applicationId: string): WebhookPayload {
  const eventTimeUtc = new Date().toISOString();
  switch (kind) {
    case 'payment':
      return {
        paymentId: randomUUID(),
        merchantPaymentId: `order-${randomBytes(4).toString('hex')}`,
        paymentStatus: 'SETTLED',
        errorDescription: null,
        paymentRequest: {
          amount: new Decimal('100.50'),
          currency: 'GBP',
          reference: reference('PC'),
        },
        paymentRefundData: {
          accountHolderName: 'Payconform Test Payer',
          accountIdentifications: [
            { type: 'ACCOUNT_NUMBER', number: '20000001' },
            { type: 'SORT_CODE', number: '200000' },
          ],
        },
        applicationId,
        isExternal: false,
      };
    case 'payout':
      return {
        eventTimeUtc,
        applicationId,
        payoutId: randomUUID(),
        payoutAmount: new Decimal('10.50'),
        payoutCurrency: 'GBP',
        payoutReference: reference('INV-'),
        payoutStatus: 'PROCESSED',
        payoutStatusDescription: '',
        payoutWebhookDeliveryAttempt: 0,
        destination: {
          type: 'SCAN',
          name: 'Jane Payee',
          accountNumber: '12345678',
          sortCode: '040004',
        },
      };
    case 'refund':
      return {
        eventTimeUtc,
        applicationId,
        refundedPaymentId: randomUUID(),
        refundedMerchantPaymentId: `order-${randomBytes(4).toString('hex')}`,
        refundedPaymentAmount: new Decimal('100.00'),
        refundId: randomUUID(),
        refundAmount: new Decimal('10.50'),
        refundCurrency: 'GBP',
        refundReference: reference('RF'),
        refundStatus: 'PROCESSED',
        refundStatusDescription: '',
        refundWebhookDeliveryAttempt: 0,
        destination: {
          type: 'SCAN',
          accountNumber: '20000001',
          sortCode: '200000',
          name: 'Payconform Test Payer',
        },
      };
  }
}

/** The payload with members the spec does not define, at the top level and inside a nested object. */
export function withUnknownMembers(kind: WebhookKind, payload: WebhookPayload): WebhookPayload {
  const nested = kind === 'payment' ? 'paymentRequest' : 'destination';
  const inner = payload[nested] as Record<string, unknown>;
  return {
    ...payload,
    [nested]: { ...inner, payconformFutureField: 'ignore me' },
    payconformUnknownProperty: { added: true, version: 2 },
    schemaVersion: '9.9',
  };
}

/** The payload with its amount changed (still schema-valid): a body altered after signing. */
export function withAmountChanged(kind: WebhookKind, payload: WebhookPayload): WebhookPayload {
  const [first, second] = amountPointer[kind];
  if (second === undefined) return { ...payload, [first!]: new Decimal('9999.50') };
  return {
    ...payload,
    [first!]: { ...(payload[first!] as Record<string, unknown>), [second]: new Decimal('9999.50') },
  };
}

/** The payload with the payer's or payee's name written with non-ASCII characters (UTF-8 on the wire). */
export function withNonAsciiName(kind: WebhookKind, payload: WebhookPayload): WebhookPayload {
  const name = 'Zoë Ødegård-Łukasz 山田';
  if (kind === 'payment')
    return {
      ...payload,
      paymentRefundData: {
        ...(payload['paymentRefundData'] as Record<string, unknown>),
        accountHolderName: name,
      },
    };
  return {
    ...payload,
    destination: { ...(payload['destination'] as Record<string, unknown>), name },
  };
}
