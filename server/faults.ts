// The reference service's deliberate faults: each breaks exactly one behaviour, so every conformance check can be shown to fail.

/**
 * When the faults that misbehave only after a wait act (`how: 'explorer'`). Each wait is longer than any fixed check
 * takes over the resource it watches, and the explorer's own waits of a second and more reach past it.
 */
export const lateFaultTimings = {
  /** hold-lapses: a payout held in AWAITING_COMMIT this long, untouched, moves on to IN_PROGRESS by itself. */
  holdLapsesMs: 2_000,
  /** refund-active-lapses: an IN_PROGRESS refund older than this no longer counts as active. */
  refundActiveLapseMs: 1_000,
  /**
   * refund-active-lapses: with the fault on, a refund leaves IN_PROGRESS no sooner than this (the lifecycle delay when
   * longer), so the lapse falls while it is still IN_PROGRESS (how long a refund stays IN_PROGRESS is not shown), and
   * no webhook shows it leaving within the explorer's webhook wait after a second refund is accepted: the only
   * evidence of an overlap the spec's sentences support (docs/verdicts.md, "Readings the spec does not state"). A
   * second refund accepted 1 to 3 s after the first shows it to a 2 s wait (a patient lane's long waits reach there).
   */
  refundInProgressMs: 5_000,
  /** webhook-without-change: this long after a cancel, a payout webhook announcing IN_PROGRESS. */
  webhookWithoutChangeMs: 2_000,
} as const;

const seconds = (ms: number): string => `${ms / 1000} s`;

/**
 * The fault table. Names are public API (the conformance runner's tests use them with `--fault`): never rename.
 * `breaks` names the rule of the spec (or of this service's documented choices) that the fault violates.
 */
export const faultCatalogue = [
  // Request signing (create payout; and commit, cancel, refund when a signature is sent or required)
  {
    name: 'accept-unsigned',
    requirements: ['SIG-PAYOUT-CREATE-SIGNED', 'SIG-HEADERS-BODY'],
    breaks: 'Authentication: signed requests (Signature-Input and Signature required)',
    description:
      'create payout accepts a request missing Signature or Signature-Input (or both) on the plain id/secret check',
  },
  {
    name: 'no-replay-check',
    requirements: ['SIG-VERIFY-NONCE-UNUSED', 'SIG-VERIFY-RECORD-NONCE'],
    breaks: 'Authentication step 4 / step 11: nonce not used before',
    description: 'a nonce already seen is accepted again (nonces are neither checked nor recorded)',
  },
  {
    name: 'nonce-race',
    requirements: ['LIMIT-NONCE', 'SIG-PROFILE-NONCE-ATOMIC'],
    breaks: 'Limits: nonce unique; concurrent duplicates',
    description:
      'the nonce check and the nonce record are separate steps with a gap between them, so concurrent identical requests are all accepted',
  },
  {
    name: 'no-created-window',
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'LIMIT-SIGNATURE-VALIDITY'],
    breaks: 'Authentication step 3: now - created <= 300 s',
    description: 'a signature older than 300 seconds is accepted',
  },
  {
    name: 'no-future-check',
    requirements: ['SIG-PROFILE-FUTURE-CREATED'],
    breaks: 'Authentication step 3: created not in the future',
    description: 'a signature whose created lies far in the future is accepted',
  },
  {
    name: 'no-digest-check',
    requirements: ['SIG-VERIFY-DIGEST'],
    breaks: 'Authentication step 8: Content-Digest matches the body',
    description:
      'Content-Digest is not compared with the body (a missing or mismatching digest is accepted)',
  },
  {
    name: 'no-signature-check',
    requirements: ['SIG-VERIFY-SIGNATURE'],
    breaks: 'Authentication step 10: Ed25519 signature verifies',
    description: 'the Ed25519 signature is not verified (any signature bytes are accepted)',
  },
  {
    name: 'no-secret-check',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    breaks: 'Authentication step 6: x-application-secret valid',
    description: 'x-application-secret is not compared with the application secret',
  },
  {
    name: 'no-application-id-check',
    requirements: ['SIG-VERIFY-APPLICATION-ID', 'APP-CREDENTIALS-CHECKED'],
    breaks: 'Authentication step 5: x-application-id present and valid',
    description:
      'a missing or unknown x-application-id is accepted; the key is found from keyid alone',
  },
  {
    name: 'no-key-check',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description: "an unknown keyid is accepted; the application's own key is used instead",
  },
  {
    name: 'accept-any-alg',
    requirements: ['SIG-PARAM-ALG'],
    breaks: 'Authentication: alg is always "ed25519"',
    description: 'an alg parameter other than "ed25519" is accepted',
  },
  {
    name: 'accept-any-label',
    requirements: ['SIG-LABEL-SIG1'],
    breaks: 'Authentication step 4: the label is always sig1',
    description: 'a signature label other than sig1 is accepted',
  },
  {
    name: 'accept-any-components',
    requirements: ['SIG-BASE-COMPONENTS-ORDER'],
    breaks: 'Authentication step 2: the eight covered components in the fixed order',
    description: 'covered components in another order, or fewer of them, are accepted',
  },
  {
    name: 'no-nonce-length-check',
    requirements: ['LIMIT-NONCE', 'SIG-PARAM-NONCE'],
    breaks: 'Limits: nonce at most 50 characters',
    description: 'a nonce longer than 50 characters is accepted',
  },
  {
    name: 'allow-missing-nonce',
    requirements: ['SIG-VERIFY-NONCE-PRESENT', 'SIG-PARAM-NONCE'],
    breaks: 'Authentication: nonce required on every request',
    description:
      'a signature without a nonce parameter is accepted (the core policy switches presence and length off together, so an over-long nonce passes too)',
  },
  {
    name: 'creates-on-rejection',
    requirements: ['SIG-VERIFY-DECISION', 'SIG-PROFILE-REJECTED-NO-EFFECT'],
    breaks: 'Authentication step 12: reject means no effect',
    description:
      'a signed create-payout request that fails verification is answered 401 but still creates a payout (and its webhook)',
  },
  // Confirmation of Payee and payout lifecycle
  {
    name: 'no-cop-hold',
    requirements: ['COP-HOLD-ON-MISMATCH'],
    breaks: 'Payout transitions: doNotCommitOnCoPMismatch true holds on a CoP mismatch',
    description:
      'doNotCommitOnCoPMismatch is ignored: a mismatching payout goes straight to IN_PROGRESS',
  },
  {
    name: 'hold-without-flag',
    requirements: ['COP-AUTO-COMMIT-DEFAULT'],
    breaks:
      'Payout transitions: doNotCommitOnCoPMismatch omitted or false executes whatever the CoP result',
    description:
      'a mismatching CoP result holds the payout in AWAITING_COMMIT even when doNotCommitOnCoPMismatch is false or omitted',
  },
  {
    name: 'hold-on-not-checked',
    requirements: ['COP-AUTO-COMMIT-MATCH'],
    breaks: 'Payout transitions: NOT_CHECKED and null are executed automatically',
    description:
      'with doNotCommitOnCoPMismatch true a NOT_CHECKED or null copStatus is held in AWAITING_COMMIT',
  },
  {
    name: 'hold-on-full-match',
    requirements: ['COP-AUTO-COMMIT-MATCH'],
    breaks: 'Payout transitions: FULL_MATCH, NOT_CHECKED and null are executed automatically',
    description:
      'with doNotCommitOnCoPMismatch true a FULL_MATCH payout is held in AWAITING_COMMIT',
  },
  {
    name: 'commit-changes-cop',
    requirements: ['COP-COMMIT'],
    breaks: 'Payout transitions: commit keeps copStatus',
    description: 'commit rewrites copStatus to FULL_MATCH',
  },
  {
    name: 'cancel-without-reason',
    requirements: ['COP-CANCEL', 'PAYOUT-STATUSREASON'],
    breaks: 'Cancel payout: statusReason describes the release of the amount',
    description: 'a cancelled payout has statusReason null',
  },
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
  // Response formats
  {
    name: 'payout-response-shape',
    requirements: ['PAYOUT-CREATEDAT-FORM', 'PAYOUT-RESPONSE-RESOURCE'],
    breaks: 'Payout resource: createdAt is ISO 8601 UTC with fractional seconds and Z',
    description: 'createdAt is sent without fractional seconds and without Z',
  },
  {
    name: 'tracing-id-fixed',
    requirements: ['PAYOUT-TRACINGID'],
    breaks: 'Payout resource: tracingId differs per response',
    description: 'every response carries the same tracingId',
  },
  {
    name: 'refund-timestamp-zoned',
    requirements: ['REFUND-CREATEDATUTC-FORM'],
    breaks: 'Refund resource: createdAtUtc has no zone suffix',
    description: 'createdAtUtc ends in Z',
  },
  {
    name: 'public-key-full-pem',
    requirements: ['KEY-PEM-TRIMMED'],
    breaks: 'Public key endpoint: BEGIN/END lines trimmed off',
    description:
      'the public key is served with its -----BEGIN PUBLIC KEY----- and -----END PUBLIC KEY----- lines',
  },

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
  // Found by the drawn forgeries (check signature-forgeries): each is right on the one forgery per rule the fixed
  // checks send and wrong just beside it, at an edge of the profile's rules (server/signature-edge-faults.ts).
  {
    name: 'nonce-empty-accepted',
    requirements: ['SIG-VERIFY-NONCE-PRESENT', 'SIG-PARAM-NONCE'],
    how: 'drawn',
    breaks:
      'Signature parameters: nonce required on every request (Server verification order step 4)',
    description:
      'an empty nonce (nonce="") is taken as present and is never recorded (presence read as "not undefined")',
  },
  {
    name: 'nonce-max-length-refused',
    requirements: ['LIMIT-NONCE'],
    how: 'drawn',
    breaks: 'Limits: nonce at most 50 characters (a nonce of exactly 50 is allowed)',
    description:
      'a nonce of exactly the maximum length is refused (the length compared with < instead of <=)',
  },
  {
    name: 'created-zero-unchecked',
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'SIG-PARAM-CREATED'],
    how: 'drawn',
    breaks: 'Step 3: now minus created is at most 300 seconds',
    description: 'created=0 skips the window (the check reads `created && now - created > max`)',
  },
  {
    name: 'parameter-types-coerced',
    requirements: ['SIG-VERIFY-PARSE', 'SIG-INPUT-HEADER'],
    how: 'drawn',
    breaks: 'Step 4: Signature-Input form (created an Integer; keyid, alg, nonce Strings)',
    description:
      'each signature parameter is coerced to its type before the base is rebuilt: created="1767225600" or 1767225600.0 as an Integer, a Token or Integer nonce, alg or keyid as a String',
  },
  {
    name: 'label-case-insensitive',
    requirements: ['SIG-LABEL-SIG1'],
    how: 'drawn',
    breaks: 'The label is always sig1 (Signature-Input and Signature)',
    description: 'the member labels are lowercased before parsing, so SIG1= and Sig1= are accepted',
  },
  {
    name: 'signature-member-any-label',
    requirements: ['SIG-SIGNATURE-HEADER', 'SIG-LABEL-SIG1'],
    how: 'drawn',
    breaks: 'Step 5: Signature: sig1=:<BASE64_SIGNATURE>:',
    description:
      "Signature's only member is used whatever its label, when Signature-Input is labelled sig1",
  },
  {
    name: 'digest-parsed-loosely',
    requirements: ['DIGEST-SHA512', 'SIG-VERIFY-DIGEST'],
    how: 'drawn',
    breaks: 'Step 1: Content-Digest: sha-512=:<BASE64_DIGEST>: over the exact body bytes',
    description:
      'Content-Digest is read by a case-insensitive pattern and decoded as lenient base64 (SHA-512=, base64url and unpadded digests accepted)',
  },
  // Found by the near-miss forgeries (checks credential-near-misses and client-mistake-forgeries): each accepts a
  // credential one step from the configured one, or also verifies the signature over the base a known client mistake
  // builds when it fails over the right one (server/near-miss-faults.ts).
  {
    name: 'secret-case-insensitive',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 6: x-application-secret valid',
    description: 'x-application-secret is compared with the application secret case-insensitively',
  },
  {
    name: 'secret-prefix-match',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 6: x-application-secret valid',
    description:
      'x-application-secret is compared over the shorter of the two lengths, so a secret cut short or extended matches',
  },
  {
    name: 'application-id-prefix-match',
    requirements: ['SIG-VERIFY-APPLICATION-ID', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 5: x-application-id present and valid',
    description:
      "the application is looked up by the received x-application-id as a prefix of a configured one (a LIKE 'id%' lookup), so an id cut short finds it",
  },
  {
    name: 'key-id-case-insensitive',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    how: 'near-miss',
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description: 'the keyid is looked up case-insensitively',
  },
  {
    name: 'key-id-trimmed',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    how: 'near-miss',
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description:
      'the keyid is trimmed before it is looked up, so keyid=" <id> " (spaces inside the String) finds the key',
  },
  {
    name: 'base-method-lowercase-tolerated',
    requirements: ['SIG-BASE-METHOD', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: @method is the HTTP method in uppercase',
    description:
      'a signature that fails is verified again over the base with @method in lower case (a tolerance for a known client mistake)',
  },
  {
    name: 'base-authority-without-port-tolerated',
    requirements: ['SIG-BASE-AUTHORITY', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: @authority includes any port other than 80 and 443',
    description:
      'a signature that fails is verified again over the base with @authority without its port (a tolerance for proxies and a known client mistake)',
  },
  {
    name: 'base-content-type-dropped-tolerated',
    requirements: ['SIG-BASE-CONTENT-TYPE-LENGTH', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: content-type is the value of the header',
    description:
      'a signature that fails is verified again over the base with an empty content-type line (a client that signed before setting it)',
  },
  {
    name: 'base-content-length-dropped-tolerated',
    requirements: ['SIG-BASE-CONTENT-TYPE-LENGTH', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: content-length is the value of the header',
    description:
      'a signature that fails is verified again over the base with an empty content-length line (a client that signed before the length was known)',
  },
  // Misbehaves once only: the audit runs a failing check once more before it reports the failure, and sees it right
  // then, so the fault is reported flaky (a warning with both runs), never a plain failure (conformance/flaky.ts).
  {
    name: 'fails-once',
    requirements: ['KEY-PEM-TRIMMED'],
    how: 'flaky',
    breaks: 'Public key endpoint: BEGIN/END lines trimmed off (wrong on the first answer only)',
    description:
      'the first GET of the public key after the service starts is answered with its -----BEGIN/END PUBLIC KEY----- lines (a cold cache serving the PEM as loaded); every later one trimmed',
  },
] as const satisfies ReadonlyArray<{
  readonly name: string;
  /** The ids (conformance/requirements.json) of the requirements the fault breaks. */
  readonly requirements: readonly [string, ...string[]];
  readonly breaks: string;
  readonly description: string;
  readonly how?: string;
}>;

/** The name of a fault the reference service can be started with (`--fault`). */
export type FaultName = (typeof faultCatalogue)[number]['name'];

/** The faults found by method (they carry `how`); each is proven through the audit check (or the explorer) that catches it. */
export type MethodFaultName = Extract<
  (typeof faultCatalogue)[number],
  { readonly how: string }
>['name'];

/** The faults only the explorer finds: every fixed check passes on them (`npm run faults` shows both columns). */
export type ExplorerFaultName = Extract<
  (typeof faultCatalogue)[number],
  { readonly how: 'explorer' }
>['name'];

/** The faults only the explorer finds (they show over a sequence of operations). */
export const explorerFaults: readonly ExplorerFaultName[] = faultCatalogue.flatMap((f) =>
  'how' in f && f.how === 'explorer' ? [f.name as ExplorerFaultName] : [],
);

/** A fault as `listFaults` describes it: its name, what it breaks and how the audit finds it. */
export interface FaultDescription {
  readonly name: FaultName;
  readonly description: string;
  readonly breaks: string;
}

const names: ReadonlySet<string> = new Set(faultCatalogue.map((f) => f.name));
if (names.size !== faultCatalogue.length) throw new Error('faultCatalogue: duplicate fault name');

/** True when `name` names a fault of the catalogue. */
export function isFaultName(name: string): name is FaultName {
  return names.has(name);
}

/** The `--list-faults` text: one fault per line, name then what it breaks. */
export function listFaults(): string {
  const width = Math.max(...faultCatalogue.map((f) => f.name.length));
  return faultCatalogue
    .map(
      (f) =>
        `${f.name.padEnd(width)}  ${f.description}\n${' '.repeat(width)}  breaks: ${f.breaks} (${f.requirements.join(', ')})\n`,
    )
    .join('');
}

/**
 * What `--variant alt` and `--variant lenient` change: at each point the spec leaves open, the choice `clean` makes,
 * the one `alt` makes, the one `lenient` makes, and the spec's words that leave it open. docs/reference-service.md lists this table; the server audit must pass both personalities.
 */
export const variantChoices = [
  {
    point: 'success status codes',
    clean: 'create payout and create refund answer 201',
    alt: 'both answer 200',
    lenient: 'as clean (201)',
    openBy:
      'Required-ness of each request field, amount bounds and the success status code: not shown.',
  },
  {
    point: 'authentication failure status',
    clean: '401 UNAUTHORIZED',
    alt: '403 FORBIDDEN',
    lenient: 'as clean (401)',
    openBy:
      'Status codes and bodies for [...] failed authentication or signature verification, and payout endpoint errors: not shown.',
  },
  {
    point: 'refund and commit/cancel conflicts',
    clean:
      '409 for a second active refund and for commit or cancel outside AWAITING_COMMIT; 422 above the payment total',
    alt: '422 for the conflicts; 400 above the payment total',
    lenient: 'as clean (409; 422 above the payment total)',
    openBy:
      'Status codes and bodies for exceeding the refund total, a second concurrent refund [...]: not shown.',
  },
  {
    point: 'error bodies outside the refund endpoint',
    clean: 'the refund error body everywhere',
    alt: 'RFC 9457 application/problem+json (type, title, status, detail, traceId) outside refund creation',
    lenient: 'as clean (the refund error body everywhere)',
    openBy: 'Refund creation failures return a JSON body [...] payout endpoint errors: not shown.',
  },
  {
    point: 'extra properties',
    clean: "only the fields of the spec's tables",
    alt: 'every resource, error body and webhook payload carries extra members (top level and nested)',
    lenient: "as clean (only the fields of the spec's tables)",
    openBy: 'Receivers must ignore unknown properties in payloads.',
  },
  {
    point: 'signature labels beside sig1',
    clean: 'a request with any label besides sig1 is rejected',
    alt: "only sig1 is processed; other labels are ignored (the spec fixes the signer's label; RFC 9421 §7.2.7 lets a verifier choose which signatures it processes)",
    lenient: 'other labels are ignored, as alt: only the sig1 member of each field is read',
    openBy: 'The label is always `sig1`.',
  },
  {
    point: 'created in the future',
    clean: "rejected beyond 300 s (payconform's profile choice)",
    alt: 'accepted: only the age is bounded',
    lenient: 'accepted, as alt: only the age is bounded',
    openBy: '3. Check now minus created is at most 300 seconds.',
  },
  {
    point: 'commit, cancel and refund signatures',
    clean: 'verified when present, not required',
    alt: 'required (answered 403 without one)',
    lenient: 'as clean: verified when present (on the lenient path), not required',
    openBy: 'Whether commit, cancel and refund calls require the signature: not shown',
  },
  {
    point: 'lifecycle speed',
    clean: 'each automatic payout step after the lifecycle delay',
    alt: 'payouts move on at once (5 ms); refunds as clean',
    lenient: 'as clean',
    openBy: 'Moves into and out of PROCESSED, FAILED, HELD, RETURNED [...]: not shown.',
  },
  {
    point: 'retry schedule',
    clean: 'exponential backoff from the initial delay',
    alt: 'a constant interval (the initial delay)',
    lenient: 'as clean (exponential backoff)',
    openBy: 'Retry interval and maximum number of attempts: not shown.',
  },
  {
    point: 'webhook body layout',
    clean: 'compact JSON',
    alt: 'pretty-printed JSON (2-space indent), signed over exactly the bytes sent',
    lenient: 'as clean (compact JSON)',
    openBy: 'the signature is base64 text computed over the exact JSON payload bytes',
  },
  {
    point: 'status descriptions',
    clean: 'a short text',
    alt: 'empty',
    lenient: 'as clean (a short text)',
    openBy: 'payoutStatusDescription | string | may be empty',
  },
  {
    point: 'media-type parameters',
    clean: 'no parameters',
    alt: '`; charset=utf-8` on every JSON response and webhook',
    lenient: 'as clean (no parameters)',
    openBy: 'Version negotiation rules [...]: not shown.',
  },
  {
    point: 'payment webhook Accept',
    clean: 'application/json',
    alt: '*/*',
    lenient: 'as clean (application/json)',
    openBy: 'Headers: `Authorization` (signature), `Content-Type: application/json`, `Accept`.',
  },
  {
    point: 'lengths and digit counts',
    clean:
      'tracingId 32 lowercase hex digits; createdAt with milliseconds; createdAtUtc with milliseconds; eventTimeUtc with milliseconds',
    alt: 'tracingId 16 upper-case hex digits; createdAt with microseconds; createdAtUtc with 7 fractional digits; eventTimeUtc without fractional seconds',
    lenient: 'as clean',
    openBy: 'hexadecimal trace identifier; differs per response [...] ISO 8601 UTC timestamp',
  },
  {
    point: 'public key layout',
    clean: 'the PEM body in 64-character lines',
    alt: 'the PEM body on one line',
    lenient: 'as clean (64-character lines)',
    openBy:
      "Returns the service's public key in PKCS#8 PEM form, with the [...] lines trimmed off.",
  },
  {
    point: 'Signature-Input as RFC 8941 reads it',
    clean:
      "payconform's strict parser: a parameter written twice, an Integer written as a Decimal or with leading zeros, an unknown parameter or another order are refused",
    alt: 'as clean',
    lenient:
      'the structured-headers library: a key written twice keeps its last value, a Decimal is read as its number, unknown parameters are ignored, any order; the base is rebuilt from what was parsed',
    openBy: '2. Parse Signature-Input for components, created, keyid, alg, nonce.',
  },
  {
    point: 'byte sequences as RFC 8941 reads them',
    clean:
      'the signature and digest in padded standard base64 only; no parameter on the signature; Content-Digest with one sha-512 member or others beside it',
    alt: 'as clean',
    lenient:
      'unpadded base64 accepted, parameters on the signature member ignored, Content-Digest members other than sha-512 ignored',
    openBy: '`Signature: sig1=:<BASE64_SIGNATURE>:` (RFC 8941 byte-sequence form)',
  },
] as const satisfies ReadonlyArray<{
  readonly point: string;
  readonly clean: string;
  readonly alt: string;
  /** Variant lenient's choice: another permitted one than alt's wherever the answer is the service's business. */
  readonly lenient: string;
  readonly openBy: string;
}>;

/**
 * The service's personality: `clean` takes one permitted choice wherever the spec is silent, `alt` the other (see
 * `variantChoices`); `lenient` verifies signed requests on its own path (server/lenient-verifier.ts: the
 * structured-headers library, accepting everything the spec permits) and takes its own column of `variantChoices`.
 * All three conform; the audit must pass each.
 */
export type ServiceVariant = 'clean' | 'alt' | 'lenient';

/**
 * The reference service's personalities (`--variant`): each takes other permitted choices where
 * the spec is silent.
 */
export const serviceVariants: readonly ServiceVariant[] = ['clean', 'alt', 'lenient'];

/**
 * The faults switched on (cheap membership test), and the personality: every behaviour switch of the service is read
 * at its point of use from this one object.
 */
export class FaultSet {
  private readonly set: ReadonlySet<FaultName>;
  constructor(
    faults: readonly FaultName[] = [],
    readonly variant: ServiceVariant = 'clean',
  ) {
    for (const f of faults)
      if (!isFaultName(f)) throw new TypeError(`unknown fault "${String(f)}"`);
    if (!serviceVariants.includes(variant))
      throw new TypeError(`unknown variant "${String(variant)}"`);
    this.set = new Set(faults);
  }
  /** The `alt` personality: the other permitted choice at every point where the spec is silent. */
  get alt(): boolean {
    return this.variant === 'alt';
  }
  has(name: FaultName): boolean {
    return this.set.has(name);
  }
  get size(): number {
    return this.set.size;
  }
  list(): FaultName[] {
    return [...this.set];
  }
}
