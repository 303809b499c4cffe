// The reference service's faults, part of the catalogue (server/faults.ts): refunds, and the payments (created and moved through /sandbox/) they refund.
import type { FaultEntry } from './fault-entry.js';

/** Refunds, and the payments (created and moved through /sandbox/) they refund: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const refundFaults = [
  // Refunds
  {
    name: 'refund-unsettled',
    requirements: ['REFUND-SETTLED-ONLY'],
    breaks: 'Limits: a refund can be started only when the payment is SETTLED',
    description: 'a payment in any status can be refunded',
  },
  {
    name: 'refund-over-amount',
    requirements: ['REFUND-TOTAL-CAP'],
    breaks: 'Limits: the sum of refunds cannot exceed the payment amount',
    description: 'refunds above the remaining payment amount are accepted',
  },
  {
    name: 'refund-concurrent',
    requirements: ['REFUND-ONE-ACTIVE'],
    breaks: 'Limits: only one active refund per payment',
    description: 'a second refund is accepted while an earlier one is still active',
  },
  {
    name: 'refund-partial-rejected',
    requirements: ['REFUND-PARTIAL-ALLOWED'],
    breaks: 'Limits: a refund may be full or partial',
    description: 'a refund of less than the refundable remainder is refused with 422',
  },
  {
    name: 'refund-error-shape',
    requirements: ['ERROR-REFUND-BODY'],
    breaks: 'Errors: the error body (statusCode, statusName, errorMessage, traceId, source)',
    description: 'refund errors answer with a non-spec body {"error": "..."}',
  },
  {
    name: 'refund-arbitrary-destination',
    requirements: ['REFUND-ORIGINAL-ACCOUNT'],
    breaks: 'What the service does 5 / Limits: a refund goes only to the original paying account',
    description:
      "a refund is sent to a fixed account that is not the payer's (refund resource and refund webhook destination)",
  },
  {
    name: 'refund-unsettled-message',
    requirements: ['ERROR-REFUND-UNSETTLED-422'],
    breaks: 'Errors: the 422 message names the current payment status',
    description: 'the 422 for an unsettled payment does not name the payment status',
  },
  // Payments (created and moved through /sandbox/)
  {
    name: 'payment-webhook-missing',
    requirements: ['WEBHOOK-PAYMENT-EMITTED'],
    breaks:
      'Payment statuses / Events: a payment webhook is sent for COMPLETED, SETTLED and FAILED',
    description: 'no payment webhook is sent when a payment reaches SETTLED',
  },
  {
    name: 'payment-reference-kept',
    requirements: ['PAYMENT-REFERENCE-ASSIGNED'],
    breaks:
      'What the service does 7: for a virtual account the reference passed is ignored and the service assigns its own',
    description:
      'a payment created with a reference keeps the reference passed (so two payments can share it)',
  },
] as const satisfies readonly FaultEntry[];
