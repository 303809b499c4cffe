// The status partitions the spec model judges by, built from the project's status lists (src/schemas/statuses.ts,
// src/rules/): which refunds have finished, which may not count towards the total, where a payout may move unseen.
import {
  refundStatuses,
  type PayoutStatus,
  type RefundStatus,
} from '../../src/schemas/statuses.js';
import { activeRefundStatuses, countedRefundStatuses } from '../../src/rules/refund-eligibility.js';

export {
  autoCommitCopStatuses,
  holdingCopStatuses,
  payoutStatuses,
  payoutWebhookStatuses,
} from '../../src/rules/payout-status.js';
export { activeRefundStatuses, refundStatuses };

/** Limits: a refund has finished once it left IN_PROGRESS and HELD ("the next cannot start until ... finished"). */
export const finishedRefundStatuses: readonly RefundStatus[] = refundStatuses.filter(
  (s) => !activeRefundStatuses.includes(s),
);

/** Refunds that may or may not count towards the payment's total (not shown: either is accepted). */
export const maybeUncountedRefundStatuses: readonly RefundStatus[] = refundStatuses.filter(
  (s) => !countedRefundStatuses.includes(s),
);

/** Payout transitions: "Moves into and out of PROCESSED, FAILED, HELD, RETURNED ...: not shown". */
export const openPayoutStatuses: readonly PayoutStatus[] = [
  'PROCESSED',
  'FAILED',
  'HELD',
  'RETURNED',
];

/** True when `status` is in `list` (any value; a status outside the spec's lists is in none). */
export function isIn(list: readonly string[], status: unknown): boolean {
  return typeof status === 'string' && list.includes(status);
}
