// The reference service's faults, part of the catalogue (server/faults.ts): found only by the explorer: each shows only for some values, after a wait or in an order.
import type { FaultEntry } from './fault-entry.js';
import { lateFaultTimings, seconds } from './late-fault-timings.js';

/** Found only by the explorer: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const explorerOnlyFaults = [
  // Found by the explorer (`audit server --explore`): each shows only for some values, after a wait or in an order,
  // so every fixed check passes on it; test/explore-faults.test.ts proves the explorer finds each one.
  {
    name: 'amount-large-pence-dropped',
    requirements: ['PAYOUT-RESPONSE-RESOURCE'],
    how: 'explorer',
    breaks: 'Payout resource: amount is the amount asked',
    description:
      'a payout of 1,000.00 or more is stored without its pence (1234.56 becomes 1234.00), in the response and its webhooks',
  },
  {
    name: 'reference-long-truncated',
    requirements: ['PAYOUT-RESPONSE-RESOURCE'],
    how: 'explorer',
    breaks: 'Payout resource: reference is the reference asked',
    description: 'a reference longer than 24 characters is cut to 24 (response and webhooks)',
  },
  {
    name: 'webhook-reference-spaces-stripped',
    requirements: ['WEBHOOK-PAYOUT-PAYLOAD'],
    how: 'explorer',
    breaks: 'Payout webhook payload: payoutReference is the payout reference',
    description:
      'payout webhooks carry the reference with its spaces removed (the response keeps them)',
  },
  {
    name: 'hold-skipped-large-amount',
    requirements: ['COP-HOLD-ON-MISMATCH'],
    how: 'explorer',
    breaks:
      'Payout transitions: doNotCommitOnCoPMismatch true with a CoP mismatch holds the payout in AWAITING_COMMIT',
    description:
      'with doNotCommitOnCoPMismatch true and a CoP mismatch, a payout of 10,000.00 or more is executed at once (IN_PROGRESS) instead of held',
  },
  {
    name: 'commit-late-resets-cop',
    requirements: ['COP-COMMIT'],
    how: 'explorer',
    breaks: 'Payout transitions: on commit copStatus keeps its earlier value',
    description:
      'a commit sent more than 500 ms after the payout was created answers (and stores) copStatus FULL_MATCH',
  },
  {
    name: 'cancel-late-no-webhook',
    requirements: ['PAYOUT-STATUS-CHANGE-WEBHOOK'],
    how: 'explorer',
    breaks: 'Payout transitions: each status change produces a payout webhook',
    description:
      'a cancel sent more than 500 ms after the payout was created sends no CANCELLED webhook',
  },
  {
    name: 'webhook-amount-of-previous-payout',
    requirements: ['WEBHOOK-PAYOUT-PAYLOAD'],
    how: 'explorer',
    breaks: 'Payout webhook payload: payoutAmount is the payout amount',
    description:
      "a payout's webhooks carry the amount of the payout created before it (one resource's data in another's webhook)",
  },
  {
    name: 'refund-cap-large-payment',
    requirements: ['REFUND-TOTAL-CAP'],
    how: 'explorer',
    breaks: 'Limits: the sum of all refunds of a payment cannot exceed the payment amount',
    description:
      'for a payment of 10,000.00 or more the refund total is compared in whole pounds, so refunds may exceed it by up to 0.99',
  },
  {
    name: 'hold-lapses',
    requirements: ['COP-HOLD-ON-MISMATCH'],
    how: 'explorer',
    breaks:
      'Payout statuses: AWAITING_COMMIT: payout is held after creation until the merchant commits or cancels it (transitions: the amount is held until commit or cancel)',
    description: `a payout held in AWAITING_COMMIT and left untouched for ${seconds(lateFaultTimings.holdLapsesMs)} moves on by itself to IN_PROGRESS and sends its IN_PROGRESS payout webhook (a commit or cancel before then behaves as specified)`,
  },
  {
    name: 'refund-active-lapses',
    requirements: ['REFUND-ONE-ACTIVE'],
    how: 'explorer',
    breaks:
      'Limits: only one active refund per payment; the next cannot start until the previous one has finished',
    description: `the one-active-refund check counts an IN_PROGRESS refund older than ${seconds(lateFaultTimings.refundActiveLapseMs)} as finished (its status stays IN_PROGRESS, no webhook), so a second refund of the payment is accepted; with the fault on, refunds stay IN_PROGRESS for ${seconds(lateFaultTimings.refundInProgressMs)} (or the lifecycle delay when longer; with no automatic lifecycle until moved through /sandbox/), because the audit's embedded service otherwise moves a refund on well within a second, before the lapse could show`,
  },
  {
    name: 'refund-total-float',
    requirements: ['REFUND-PARTIAL-ALLOWED'],
    how: 'explorer',
    breaks:
      'Limits: several partial refunds per payment are allowed while their sum does not exceed the payment amount (what is left may be refunded)',
    description:
      'the refund total is summed and compared in binary floating point: the earlier refunds that count towards it (IN_PROGRESS, HELD, PROCESSED) and the new amount are added as JavaScript numbers (pounds) and compared with the payment amount as a number, so a refund of exactly what is left after partial refunds whose decimal sum is inexact (0.20 after 0.10 of a 0.30 payment: 0.1 + 0.2 is 0.30000000000000004) is refused as over the amount (REFUND_EXCEEDS_PAYMENT: 422, 400 under variant alt)',
  },
  // In every payout webhook, so not "only for some values": every fixed check passes on it because none compares a
  // payout webhook's members with its payout (the spec model does, in the explorer: payoutWebhookMembers).
  {
    name: 'webhook-other-application',
    requirements: ['WEBHOOK-PAYOUT-PAYLOAD'],
    how: 'explorer',
    breaks: 'Payout webhook payload: applicationId is the application of the payout',
    description:
      "every payout webhook carries another application's applicationId than its payout's (another application the service holds, else a fixed id); the create, commit and cancel answers carry the payout's own, and the webhooks still go to the payout's application's URL",
  },
  {
    name: 'webhook-without-change',
    requirements: ['PAYOUT-STATUS-CHANGE-WEBHOOK'],
    how: 'explorer',
    breaks:
      'Payout transitions: each status change produces a payout webhook (a webhook announces a change; none happened)',
    description: `${seconds(lateFaultTimings.webhookWithoutChangeMs)} after a payout is cancelled, another payout webhook for it announces IN_PROGRESS, although the payout stays CANCELLED and nothing moved it`,
  },
] as const satisfies readonly FaultEntry[];
