// The points the spec leaves open that the model meets, as named data: what it accepts at each (every permitted
// answer passes; the explorer records what it saw, it never fails it).
import { openPayoutStatuses } from './statuses.js';

export const NOT_SHOWN = {
  /** Payouts, Create payout: "amount bounds and the success status code: not shown". Any 2xx creates; a refusal is recorded. */
  payoutCreateRefusal: 'recorded',
  /** Payout transitions: commit or cancel from any state other than AWAITING_COMMIT: any answer. */
  commitCancelOtherStates: 'any answer',
  /** Payout transitions: moves into and out of these statuses, at any time, with their webhooks. */
  payoutOpenMoves: openPayoutStatuses,
  /** Events: "Whether a webhook is sent for the AWAITING_COMMIT payout status: not shown". */
  awaitingCommitWebhook: 'sent or not',
  /** Events: "the same webhook can arrive more than once": a repeated status is no new change. */
  webhookRedelivery: 'allowed',
  /** Refund statuses: "Transitions of refund status: not shown": any refund webhook status after IN_PROGRESS. */
  refundTransitions: 'any',
  /** Refund statuses: transitions not shown; whether a FAILED, CANCELLED or RETURNED refund counts towards the total. */
  finishedRefundCounts: 'either',
  /** Errors: status codes for exceeding the refund total or a second concurrent refund: any 4xx. */
  refundRefusalCode: 'any 4xx',
  /** Webhook payloads: "eventTimeUtc | string, ISO 8601 UTC timestamp", no more: not the moment of the change. */
  eventTimeUtc: 'recorded',
  /** Events: no delivery time and no order: a webhook's arrival says nothing of when its change happened. */
  webhookDelivery: 'any time, any order',
  /** Refund statuses: how long a refund stays IN_PROGRESS; an overlap fails only on a refund never shown leaving it. */
  refundInProgressFor: 'any duration',
  /** Events: retry interval, attempt numbering beyond "a counter, 0 in the shown payload". */
  attemptCounter: 'any integer of 0 or more',
} as const;
