// The reference service's faults, part of the catalogue (server/faults.ts): found by method (`how`): for each requirement, how an implementer plausibly gets it wrong.
import type { FaultEntry } from './fault-entry.js';

/** Found by method (`how`): entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const methodFaults = [
  // Found by method: for each requirement, how an implementer plausibly gets it wrong. `how` names the
  // method: rfc-default (a generic RFC 9421 / RFC 9530 library's default where the profile departs from it),
  // step-order (the verification order and what a rejected request leaves behind), lifecycle (rules across several
  // resources or a resource's whole life), delivery (webhooks over time), representation (serialiser habits).
  {
    name: 'path-without-query',
    requirements: ['SIG-BASE-PATH'],
    how: 'rfc-default',
    breaks: 'Signature base: @path includes the query string',
    description:
      '@path is rebuilt without the query (RFC 9421 §2.2.6 default), so a signature that leaves the query out verifies',
  },
  {
    name: 'digest-sha256-accepted',
    requirements: ['DIGEST-SHA512', 'SIG-ALGORITHMS'],
    how: 'rfc-default',
    breaks: 'Algorithms: hash SHA-512 (content digest)',
    description:
      'a Content-Digest in sha-256 is verified and accepted (RFC 9530 lets the sender choose)',
  },
  {
    name: 'digest-optional',
    requirements: ['SIG-HEADERS-BODY'],
    how: 'rfc-default',
    breaks: 'Headers added to a signed request: Content-Digest required on POST',
    description:
      'step 8 read as "when present": a create-payout request without Content-Digest is accepted',
  },
  {
    name: 'components-superset',
    requirements: ['SIG-BASE-COMPONENTS-ORDER'],
    how: 'rfc-default',
    breaks: 'Step 2: covered components, in this fixed order (exactly the eight)',
    description:
      'covered components beyond the eight are accepted (a generic library checks a minimum set)',
  },
  {
    name: 'components-as-set',
    requirements: ['SIG-BASE-COMPONENTS-ORDER'],
    how: 'rfc-default',
    breaks: 'Step 2: covered components, in this fixed order',
    description: 'the eight covered components are compared as a set: any order is accepted',
  },
  {
    name: 'alg-case-insensitive',
    requirements: ['SIG-PARAM-ALG'],
    how: 'rfc-default',
    breaks: 'Signature parameters: alg is always "ed25519"',
    description: 'alg is compared case-insensitively ("ED25519" accepted)',
  },
  {
    name: 'created-window-600',
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'LIMIT-SIGNATURE-VALIDITY'],
    how: 'step-order',
    breaks: 'Step 3: now minus created is at most 300 seconds',
    description: 'signatures up to 600 s old are accepted (the skew allowance added twice)',
  },
  {
    name: 'nonce-used-by-rejection',
    requirements: ['SIG-VERIFY-RECORD-NONCE'],
    how: 'step-order',
    breaks: 'Step 11: the nonce is recorded after the signature verified',
    description:
      'the nonce is recorded when it is checked (step 4), so a request rejected later (bad digest or signature) uses it up and the genuine request with that nonce is refused',
  },
  {
    name: 'refund-one-per-payment',
    requirements: ['REFUND-PARTIAL-ALLOWED'],
    how: 'lifecycle',
    breaks: 'Limits: several partial refunds per payment are allowed',
    description: 'a payment that had a refund, even a finished one, cannot be refunded again',
  },
  {
    name: 'refund-total-single',
    requirements: ['REFUND-TOTAL-CAP'],
    how: 'lifecycle',
    breaks: 'Limits: the sum of all refunds cannot exceed the payment amount',
    description:
      'each refund is compared with the payment amount alone, not with what earlier refunds took',
  },
  {
    name: 'refund-webhook-payment-amount',
    requirements: ['WEBHOOK-REFUND-PAYLOAD'],
    how: 'representation',
    breaks: 'Refund webhook payload: refundedPaymentAmount is the amount of the original payment',
    description: 'refundedPaymentAmount carries the refund amount',
  },
  {
    name: 'webhook-no-initial-event',
    requirements: ['PAYOUT-STATUS-CHANGE-WEBHOOK', 'REFUND-STATUS-CHANGE-WEBHOOK'],
    how: 'lifecycle',
    breaks: 'Each status change produces a webhook (creation into IN_PROGRESS included)',
    description: 'no payout or refund webhook for the creation (IN_PROGRESS); later changes only',
  },
  {
    name: 'refund-webhook-missing',
    requirements: ['REFUND-STATUS-CHANGE-WEBHOOK'],
    how: 'lifecycle',
    breaks:
      'Events: a refund webhook for any refund status change, started in the portal or by API',
    description: 'refunds created through the API send no refund webhook at all',
  },
  {
    name: 'payment-webhook-completed-missing',
    requirements: ['WEBHOOK-PAYMENT-EMITTED'],
    how: 'lifecycle',
    breaks: 'Payment statuses: a payment webhook is sent for COMPLETED, SETTLED and FAILED',
    description: 'no payment webhook for COMPLETED (only the final SETTLED or FAILED)',
  },
  {
    name: 'no-hold-on-partial',
    requirements: ['COP-HOLD-ON-MISMATCH'],
    how: 'lifecycle',
    breaks: 'Payout transitions: PARTIAL_MATCH is held when doNotCommitOnCoPMismatch is true',
    description:
      'a PARTIAL_MATCH payout is executed at once even with doNotCommitOnCoPMismatch true (only NO_MATCH and worse are held)',
  },
  {
    name: 'commit-processed',
    requirements: ['COP-COMMIT'],
    how: 'lifecycle',
    breaks: 'Payout transitions: commit gives IN_PROGRESS',
    description: 'commit answers the payout as PROCESSED',
  },
  {
    name: 'webhook-retry-once',
    requirements: ['WEBHOOK-RETRY-UNTIL-200'],
    how: 'delivery',
    breaks: 'Events: repeated until the receiver answers 200',
    description: 'a failed webhook is retried once, then given up',
  },
  {
    name: 'webhook-retry-5xx-only',
    requirements: ['WEBHOOK-RETRY-UNTIL-200'],
    how: 'delivery',
    breaks: 'Events: any answer other than 200 counts as failure and is retried',
    description:
      'only 5xx answers and network errors are retried; a 4xx answer counts as delivered',
  },
  {
    name: 'webhook-retry-bad-signature',
    requirements: ['WEBHOOK-AUTHORIZATION'],
    how: 'delivery',
    breaks: 'Webhook authentication: every webhook signed over the exact bytes',
    description:
      "redeliveries carry the first attempt's signature over a payload whose attempt counter changed",
  },
  {
    name: 'webhook-signature-hex',
    requirements: ['WEBHOOK-AUTHORIZATION'],
    how: 'representation',
    breaks: 'Webhook authentication: the signature is base64 text',
    description: 'the Authorization signature is hex-encoded',
  },
  {
    name: 'webhook-no-accept',
    requirements: ['WEBHOOK-PAYOUT-REFUND-HEADERS'],
    how: 'representation',
    breaks: 'Payout and refund webhook headers: Accept: application/json',
    description: 'payout and refund webhooks carry no Accept header',
  },
  {
    name: 'webhook-event-time-offset',
    requirements: ['WEBHOOK-PAYOUT-PAYLOAD', 'WEBHOOK-REFUND-PAYLOAD'],
    how: 'representation',
    breaks: 'Webhook payloads: eventTimeUtc is an ISO 8601 UTC timestamp',
    description: 'eventTimeUtc is local time with a +01:00 offset',
  },
  {
    name: 'public-key-stale',
    requirements: ['WEBHOOK-VERIFY-WITH-PUBLIC-KEY', 'KEY-ENDPOINT'],
    how: 'representation',
    breaks:
      'Webhook authentication: the receiver verifies with the key from the public-key endpoint',
    description:
      'the public-key endpoint serves another key than the one webhooks are signed with (a rotation half done)',
  },
  {
    name: 'omit-null-fields',
    requirements: ['PAYOUT-RESPONSE-RESOURCE', 'PAYOUT-ACCOUNT-OBJECT'],
    how: 'representation',
    breaks: 'Resources: "string or null" fields are present, null when not used',
    description:
      'null members (statusReason, iban, bic, copStatus) are left out of responses (a serialiser set to omit nulls)',
  },
  {
    name: 'amount-as-string',
    requirements: ['PAYOUT-RESPONSE-RESOURCE'],
    how: 'representation',
    breaks: 'Payout resource: amount is a number (decimal)',
    description:
      'the payout resource carries amount as a string, as the refund request example does',
  },
  {
    name: 'tracing-id-uuid',
    requirements: ['PAYOUT-TRACINGID'],
    how: 'representation',
    breaks: 'Payout resource: tracingId is a hexadecimal trace identifier',
    description: 'tracingId is a hyphenated UUID',
  },
  {
    name: 'status-reason-always',
    requirements: ['PAYOUT-STATUSREASON'],
    how: 'representation',
    breaks: 'Payout resource: statusReason null normally',
    description: 'every payout carries a statusReason text',
  },
  {
    name: 'refund-id-name',
    requirements: ['REFUND-RESPONSE-RESOURCE'],
    how: 'representation',
    breaks: 'Refund resource: refundPaymentId',
    description:
      'the refund resource names its id refundId (as the refund webhook does) instead of refundPaymentId',
  },
  {
    name: 'refund-created-pending',
    requirements: ['REFUND-CREATED-IN-PROGRESS'],
    how: 'representation',
    breaks: 'Refund statuses: a refund is created with status IN_PROGRESS',
    description: 'a new refund is answered with status PENDING',
  },
  {
    name: 'refund-unsettled-400',
    requirements: ['ERROR-REFUND-UNSETTLED-422'],
    how: 'representation',
    breaks: 'Errors: refunding a payment not SETTLED gives 422 UNPROCESSABLE_ENTITY',
    description: 'a refund of an unsettled payment is answered 400 BAD_REQUEST',
  },
] as const satisfies readonly FaultEntry[];
