// The reference service's faults, part of the catalogue (server/faults.ts): webhooks: their signature, body, delivery and retries.
import type { FaultEntry } from './fault-entry.js';

/** Webhooks: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const webhookFaults = [
  // Webhooks
  {
    name: 'webhook-bad-signature',
    requirements: ['WEBHOOK-AUTHORIZATION'],
    breaks: 'Webhook authentication: signature over the exact payload bytes',
    description: 'the Authorization signature is computed over other bytes than those sent',
  },
  {
    name: 'webhook-reserialised',
    requirements: ['WEBHOOK-AUTHORIZATION', 'WEBHOOK-VERIFY-EXACT-BYTES'],
    breaks: 'Webhook authentication rule 1: exact bytes',
    description:
      'the payload is signed in one JSON serialisation and sent in another (pretty-printed)',
  },
  {
    name: 'webhook-no-retry',
    requirements: ['WEBHOOK-RETRY-UNTIL-200'],
    breaks: 'Events: repeated until the receiver answers 200',
    description: 'a failed delivery is never retried',
  },
  {
    name: 'webhook-counter-fixed',
    requirements: ['WEBHOOK-PROFILE-ATTEMPT-COUNTER'],
    breaks: 'Events: the delivery attempt counter rises on each attempt',
    description:
      'retries repeat payoutWebhookDeliveryAttempt / refundWebhookDeliveryAttempt unchanged',
  },
  {
    name: 'webhook-post',
    requirements: ['WEBHOOK-PUT'],
    breaks: 'Events: all events are HTTP PUT calls',
    description: 'webhooks are sent with POST',
  },
  {
    name: 'webhook-content-type',
    requirements: ['WEBHOOK-PAYOUT-REFUND-HEADERS', 'VERSION-WEBHOOK-MEDIA-TYPE'],
    breaks: 'Events: Content-Type: application/json',
    description: 'webhooks are sent with Content-Type: text/plain',
  },
  {
    name: 'webhook-missing-event',
    requirements: ['PAYOUT-STATUS-CHANGE-WEBHOOK', 'REFUND-STATUS-CHANGE-WEBHOOK'],
    breaks: 'States: each status change produces a webhook',
    description:
      'status changes after creation (commit, cancel, and lifecycle moves to PROCESSED, FAILED, HELD, RETURNED) send no webhook',
  },
  {
    name: 'webhook-payload-shape',
    requirements: ['WEBHOOK-PAYOUT-PAYLOAD', 'WEBHOOK-REFUND-PAYLOAD'],
    breaks: 'Events: payout and refund webhook payload fields',
    description:
      'payout and refund webhooks lack their status field and carry the status in lower case under another name',
  },
] as const satisfies readonly FaultEntry[];
