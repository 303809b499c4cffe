// The status vocabularies of the payments service (spec: States and transitions), as constants shared by the
// schemas' TypeScript types and the business rules; test/schemas.test.ts checks each list against the schema enums.

/**
 * The six statuses a payout webhook and a refund carry (spec, Payout webhook payload; Refund statuses: "the same six
 * values as the payout list above"): the payout statuses but AWAITING_COMMIT. Written once; the lists below name it.
 */
const WEBHOOK_STATUSES = [
  'IN_PROGRESS',
  'PROCESSED',
  'CANCELLED',
  'FAILED',
  'HELD',
  'RETURNED',
] as const;

/** Spec, Payout statuses: the seven values that appear in API responses. */
export const payoutStatuses = [...WEBHOOK_STATUSES, 'AWAITING_COMMIT'] as const;
/** A payout's status (spec, Payout statuses): one of `payoutStatuses`. */
export type PayoutStatus = (typeof payoutStatuses)[number];

/** Spec, Payout webhook payload: payoutStatus values; AWAITING_COMMIT is not in the webhook list. */
export const payoutWebhookStatuses = WEBHOOK_STATUSES;
/** A payout webhook's status (spec, Payout webhook payload): one of `payoutWebhookStatuses`. */
export type PayoutWebhookStatus = (typeof payoutWebhookStatuses)[number];

/** Spec, Refund statuses: "the same six values as the payout list above". */
export const refundStatuses = WEBHOOK_STATUSES;
/** A refund's status (spec, Refund statuses): one of `refundStatuses`. */
export type RefundStatus = (typeof refundStatuses)[number];

/** Spec, Payout resource: copStatus values other than null ("null when CoP is not active"). */
export const copStatuses = [
  'FULL_MATCH',
  'PARTIAL_MATCH',
  'NO_MATCH',
  'UNABLE_TO_MATCH',
  'NOT_CHECKED',
  'UNKNOWN',
] as const;
/** A payout's copStatus when CoP is active (spec, Payout resource): one of `copStatuses`. */
export type CopStatus = (typeof copStatuses)[number];

/** Spec, Payment statuses. */
export const paymentStatuses = [
  'AWAITING_AUTHORIZATION',
  'COMPLETED',
  'SETTLED',
  'FAILED',
] as const;
/** A payment's status (spec, Payment statuses): one of `paymentStatuses`. */
export type PaymentStatus = (typeof paymentStatuses)[number];

/** Spec, Payment webhook payload: a payment webhook is sent for these statuses only. */
export const paymentWebhookStatuses = ['COMPLETED', 'SETTLED', 'FAILED'] as const;
/** A payment webhook's status (spec, Payment webhook payload): one of `paymentWebhookStatuses`. */
export type PaymentWebhookStatus = (typeof paymentWebhookStatuses)[number];

/** Spec, Payment webhook payload, paymentRefundData.accountIdentifications[].type. */
export const accountIdentificationTypes = ['ACCOUNT_NUMBER', 'SORT_CODE'] as const;
/** An account identification type (spec, Payment webhook): one of `accountIdentificationTypes`. */
export type AccountIdentificationType = (typeof accountIdentificationTypes)[number];

/** True when `value` is one of `list` (narrows the type). */
export function isOneOf<const T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}
