// Refund eligibility (spec: Limits; Endpoints, 4. Create refund; Errors): a payment can be refunded only when SETTLED,
// by a positive amount, with at most one active refund at a time, and never beyond the payment amount in total.
import { isOneOf, refundStatuses, type RefundStatus } from '../schemas/statuses.js';
import {
  compareDecimals,
  formatDecimal,
  isPositive,
  parseDecimal,
  subtractDecimals,
  sumDecimals,
  toDecimal,
  type Decimal,
  type DecimalInput,
} from './money.js';

/**
 * Refunds that have not finished: "Only one active refund per payment; the next cannot start until the previous one
 * has finished". HELD counts as active: a held refund may still be processed after contact with the provider.
 * Finished: PROCESSED, CANCELLED, FAILED, RETURNED. A status outside the spec's list counts as active (fail-safe).
 */
export const activeRefundStatuses: readonly RefundStatus[] = ['IN_PROGRESS', 'HELD'];

/**
 * Refunds whose amount counts toward "the sum of all refunds of a payment": those that paid out or still may
 * (IN_PROGRESS, HELD, PROCESSED). CANCELLED and FAILED refunds moved no money and RETURNED ones came back to the
 * merchant, so they do not use up the payment amount. A status outside the spec's list counts (fail-safe).
 */
export const countedRefundStatuses: readonly RefundStatus[] = ['IN_PROGRESS', 'HELD', 'PROCESSED'];

/** Most fractional digits of a refund amount: GBP has two minor-unit digits (ISO 4217). */
export const REFUND_AMOUNT_MAX_SCALE = 2;

export interface RefundCheckInput {
  readonly payment: { readonly status: string; readonly amount: DecimalInput };
  /** The payment's earlier refunds. */
  readonly refunds: readonly { readonly amount: DecimalInput; readonly status: string }[];
  /** The requested amount, as received (a decimal string in the spec's examples, or a number). */
  readonly amount: unknown;
}

export type RefundRefusalCode =
  'PAYMENT_NOT_SETTLED' | 'AMOUNT_INVALID' | 'REFUND_ALREADY_ACTIVE' | 'REFUND_EXCEEDS_PAYMENT';

export type RefundCheck =
  | {
      readonly ok: true;
      readonly amount: Decimal;
      /** Sum of the counted earlier refunds. */
      readonly alreadyRefunded: Decimal;
      /** What may still be refunded after this refund. */
      readonly remainingAfter: Decimal;
    }
  | {
      readonly ok: false;
      readonly code: RefundRefusalCode;
      readonly message: string;
      /** PAYMENT_NOT_SETTLED: the payment's current status. */
      readonly paymentStatus?: string;
      /** REFUND_EXCEEDS_PAYMENT: what may still be refunded. */
      readonly available?: Decimal;
    };

function isActive(status: string): boolean {
  return !isOneOf(refundStatuses, status) || activeRefundStatuses.includes(status);
}

function isCounted(status: string): boolean {
  return !isOneOf(refundStatuses, status) || countedRefundStatuses.includes(status);
}

/**
 * Decides whether a refund may start. Checks in this order: payment SETTLED, amount a positive decimal with at most
 * two fractional digits, no active refund, total within the payment amount. The payment and earlier refund amounts
 * are the service's own data: an unreadable one is a caller's mistake (PayconformError DECIMAL_INVALID).
 */
export function checkRefund(input: RefundCheckInput): RefundCheck {
  const { payment, refunds } = input;
  if (payment.status !== 'SETTLED') {
    return {
      ok: false,
      code: 'PAYMENT_NOT_SETTLED',
      paymentStatus: payment.status,
      message: `payment status is ${JSON.stringify(payment.status)}; a refund can start only when it is "SETTLED"`,
    };
  }
  const parsed = parseDecimal(input.amount, { maxScale: REFUND_AMOUNT_MAX_SCALE });
  if (!parsed.ok) return { ok: false, code: 'AMOUNT_INVALID', message: parsed.message };
  const amount = parsed.value;
  if (!isPositive(amount))
    return {
      ok: false,
      code: 'AMOUNT_INVALID',
      message: `amount must be greater than 0, got ${formatDecimal(amount)}`,
    };
  const active = refunds.find((r) => isActive(r.status));
  if (active) {
    return {
      ok: false,
      code: 'REFUND_ALREADY_ACTIVE',
      message: `a refund of this payment is still ${JSON.stringify(active.status)}; the next can start when it has finished`,
    };
  }
  const paymentAmount = toDecimal(payment.amount);
  const alreadyRefunded = sumDecimals(
    refunds.filter((r) => isCounted(r.status)).map((r) => toDecimal(r.amount)),
  );
  const available = subtractDecimals(paymentAmount, alreadyRefunded);
  if (compareDecimals(amount, available) > 0) {
    return {
      ok: false,
      code: 'REFUND_EXCEEDS_PAYMENT',
      available,
      message: `refund of ${formatDecimal(amount, { minScale: 2 })} exceeds what is left of the payment: ${formatDecimal(paymentAmount, { minScale: 2 })} paid, ${formatDecimal(alreadyRefunded, { minScale: 2 })} already refunded, ${formatDecimal(available, { minScale: 2 })} available`,
    };
  }
  return { ok: true, amount, alreadyRefunded, remainingAfter: subtractDecimals(available, amount) };
}

/**
 * The HTTP status and statusName for each refusal, for an error body (schemas/error.schema.json). Only
 * PAYMENT_NOT_SETTLED is shown by the spec (422 UNPROCESSABLE_ENTITY); the others are payconform's choice.
 */
export const refundRefusalStatus: {
  readonly [C in RefundRefusalCode]: {
    readonly statusCode: number;
    readonly statusName: string;
    readonly shownBySpec: boolean;
  };
} = {
  PAYMENT_NOT_SETTLED: { statusCode: 422, statusName: 'UNPROCESSABLE_ENTITY', shownBySpec: true },
  AMOUNT_INVALID: { statusCode: 400, statusName: 'BAD_REQUEST', shownBySpec: false },
  REFUND_ALREADY_ACTIVE: { statusCode: 409, statusName: 'CONFLICT', shownBySpec: false },
  REFUND_EXCEEDS_PAYMENT: {
    statusCode: 422,
    statusName: 'UNPROCESSABLE_ENTITY',
    shownBySpec: false,
  },
};
