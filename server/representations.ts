// The JSON shapes the service sends: payout and refund resources, and the three webhook payloads (spec: Resources, Events).
import { randomFillSync, randomUUID } from 'node:crypto';
import type { FaultSet } from './faults.js';
import { DecimalNumber } from './json-writer.js';
import type { Account, Payment, Payout, Refund } from './state.js';
import { PAYOUT_MEDIA_TYPE, REFUND_MEDIA_TYPE } from '../src/schemas/media-types.js';

export { PAYOUT_MEDIA_TYPE, REFUND_MEDIA_TYPE };

const FIXED_TRACING_ID = '0123456789abcdef0123456789abcdef';

/** A hexadecimal trace identifier, fresh for every response (variant alt: 16 upper-case digits; the length is not shown). */
export function newTracingId(faults: FaultSet): string {
  if (faults.has('tracing-id-fixed')) return FIXED_TRACING_ID;
  if (faults.has('tracing-id-uuid')) return randomUUID();
  return faults.alt ? randomHex(8).toUpperCase() : randomHex(16);
}

// Random bytes drawn 4 KiB at a time (as randomUUID does): one system call per 256 tracing ids instead of one each.
const randomPool = Buffer.alloc(4096);
let randomPoolUsed = randomPool.length;

function randomHex(bytes: number): string {
  if (randomPoolUsed + bytes > randomPool.length) {
    randomFillSync(randomPool);
    randomPoolUsed = 0;
  }
  const hex = randomPool.toString('hex', randomPoolUsed, randomPoolUsed + bytes);
  randomPoolUsed += bytes;
  return hex;
}

/** The member variant alt adds to every object it sends (receivers must ignore unknown properties). */
export const ALT_EXTRA = 'x-alt-extension';
const altExtra = (
  faults: FaultSet,
  value: unknown = { variant: 'alt' },
): Record<string, unknown> => (faults.alt ? { [ALT_EXTRA]: value } : {});

/** Variant alt sends media types with a charset parameter. */
export function withCharset(faults: FaultSet, mediaType: string): string {
  return faults.alt ? `${mediaType}; charset=utf-8` : mediaType;
}

/** Variant alt: microseconds (6 digits) where clean sends milliseconds; `digits` fractional digits in all. */
function moreDigits(faults: FaultSet, iso: string, digits: number): string {
  return faults.alt
    ? iso.replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms.padEnd(digits, '0')}Z`)
    : iso;
}

/** ISO 8601 UTC with milliseconds and Z (payout createdAt, webhook eventTimeUtc). */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

const accountObject = (a: Account, faults: FaultSet): Record<string, unknown> => ({
  type: 'SCAN',
  name: a.name,
  accountNumber: a.accountNumber,
  sortCode: a.sortCode,
  iban: a.iban,
  bic: null,
  ...altExtra(faults, 'GB'),
});

/** Fault omit-null-fields: null members left out at every level (a serialiser set to omit nulls). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [
        k,
        typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof DecimalNumber)
          ? withoutNulls(v as Record<string, unknown>)
          : v,
      ]),
  );
}

export function payoutResource(p: Payout, faults: FaultSet): Record<string, unknown> {
  const resource = payoutResourceOf(p, faults);
  return faults.has('omit-null-fields') ? withoutNulls(resource) : resource;
}

function payoutResourceOf(p: Payout, faults: FaultSet): Record<string, unknown> {
  // Fault payout-response-shape: no fractional seconds, no Z.
  const createdAt = faults.has('payout-response-shape')
    ? isoUtc(p.createdAt).slice(0, 19)
    : moreDigits(faults, isoUtc(p.createdAt), 6);
  return {
    applicationId: p.applicationId,
    payoutId: p.payoutId,
    createdAt,
    status: p.status,
    amount: faults.has('amount-as-string') ? p.amount : new DecimalNumber(p.amount),
    reference: p.reference,
    currency: p.currency,
    source: accountObject(p.source, faults),
    destination: accountObject(p.destination, faults),
    tracingId: newTracingId(faults),
    copStatus: p.copStatus,
    statusReason:
      p.statusReason ??
      (faults.has('status-reason-always') ? 'Payout accepted for processing' : null),
    ...altExtra(faults),
  };
}

export function refundResource(r: Refund, faults: FaultSet): Record<string, unknown> {
  const resource = refundResourceOf(r, faults);
  return faults.has('omit-null-fields') ? withoutNulls(resource) : resource;
}

function refundResourceOf(r: Refund, faults: FaultSet): Record<string, unknown> {
  const iso = moreDigits(faults, isoUtc(r.createdAt), 7);
  return {
    [faults.has('refund-id-name') ? 'refundId' : 'refundPaymentId']: r.refundId,
    refundedPaymentId: r.paymentId,
    // Fractional seconds, no zone suffix (the value is UTC); fault refund-timestamp-zoned keeps the Z.
    createdAtUtc: faults.has('refund-timestamp-zoned') ? iso : iso.slice(0, -1),
    status:
      faults.has('refund-created-pending') && r.status === 'IN_PROGRESS' ? 'PENDING' : r.status,
    refundRequestDetails: {
      amount: new DecimalNumber(r.amount),
      currency: r.currency,
      reference: r.reference,
      destination: {
        type: 'SCAN',
        name: r.destination.name,
        accountNumber: r.destination.accountNumber,
        sortCode: r.destination.sortCode,
        iban: r.destination.iban,
        ...altExtra(faults, 'GB'),
      },
      ...altExtra(faults),
    },
    ...altExtra(faults),
  };
}

/** The payer details as the payment webhook's `paymentRefundData` gives them. */
export function paymentRefundData(p: Payment): Record<string, unknown> {
  return {
    accountHolderName: p.payer.name,
    accountIdentifications: [
      { type: 'ACCOUNT_NUMBER', number: p.payer.accountNumber },
      { type: 'SORT_CODE', number: p.payer.sortCode },
    ],
  };
}

export function paymentWebhookPayload(p: Payment, faults?: FaultSet): Record<string, unknown> {
  const extra = faults === undefined ? {} : altExtra(faults);
  return {
    paymentId: p.paymentId,
    ...(p.merchantPaymentId !== undefined ? { merchantPaymentId: p.merchantPaymentId } : {}),
    paymentStatus: p.status,
    errorDescription: p.status === 'FAILED' ? (p.errorDescription ?? 'payment failed') : null,
    paymentRequest: {
      amount: new DecimalNumber(p.amount),
      currency: p.currency,
      reference: p.reference,
      ...extra,
    },
    paymentRefundData: paymentRefundData(p),
    ...(p.metadata !== undefined ? { paymentMetadata: p.metadata } : {}),
    applicationId: p.applicationId,
    isExternal: p.isExternal,
    ...extra,
  };
}

/** eventTimeUtc: ISO 8601 UTC; variant alt leaves out the fractional seconds (the spec does not ask for them). */
function eventTimeOf(ms: number, faults: FaultSet): string {
  // Fault webhook-event-time-offset: local time (UTC+1) with its offset.
  if (faults.has('webhook-event-time-offset')) return isoUtc(ms + 3_600_000).replace('Z', '+01:00');
  return faults.alt ? isoUtc(ms).replace(/\.\d+Z$/, 'Z') : isoUtc(ms);
}

export function payoutWebhookPayload(
  p: Payout,
  eventTime: number,
  description: string,
  attempt: number,
  faults: FaultSet,
): Record<string, unknown> {
  const status = faults.has('webhook-payload-shape')
    ? { state: p.status.toLowerCase() }
    : { payoutStatus: p.status };
  return {
    eventTimeUtc: eventTimeOf(eventTime, faults),
    applicationId: p.applicationId,
    payoutId: p.payoutId,
    payoutAmount: new DecimalNumber(p.amount),
    payoutCurrency: p.currency,
    // Fault webhook-reference-spaces-stripped: the webhook's copy of the reference loses its spaces.
    payoutReference: faults.has('webhook-reference-spaces-stripped')
      ? p.reference.replace(/ /g, '')
      : p.reference,
    ...status,
    payoutStatusDescription: description,
    payoutWebhookDeliveryAttempt: attempt,
    destination: {
      type: 'SCAN',
      name: p.destination.name,
      accountNumber: p.destination.accountNumber,
      sortCode: p.destination.sortCode,
      ...altExtra(faults, 'GB'),
    },
    ...altExtra(faults),
  };
}

export function refundWebhookPayload(
  r: Refund,
  payment: Payment,
  eventTime: number,
  description: string,
  attempt: number,
  faults: FaultSet,
): Record<string, unknown> {
  const status = faults.has('webhook-payload-shape')
    ? { state: r.status.toLowerCase() }
    : { refundStatus: r.status };
  return {
    eventTimeUtc: eventTimeOf(eventTime, faults),
    applicationId: r.applicationId,
    refundedPaymentId: payment.paymentId,
    refundedMerchantPaymentId: payment.merchantPaymentId ?? '',
    refundedPaymentAmount: new DecimalNumber(
      faults.has('refund-webhook-payment-amount') ? r.amount : payment.amount,
    ),
    refundId: r.refundId,
    refundAmount: new DecimalNumber(r.amount),
    refundCurrency: r.currency,
    refundReference: r.reference,
    ...status,
    refundStatusDescription: description,
    refundWebhookDeliveryAttempt: attempt,
    destination: {
      type: 'SCAN',
      accountNumber: r.destination.accountNumber,
      sortCode: r.destination.sortCode,
      name: r.destination.name,
      ...altExtra(faults, 'GB'),
    },
    ...altExtra(faults),
  };
}
