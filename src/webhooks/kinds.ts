// The webhook kinds the spec defines (Webhooks: payment, payout, refund), written once: the reference service sends
// them, the audits match and send them, and the payload types name them.

/** The three webhook kinds the spec defines, in its order. */
export const WEBHOOK_KINDS = ['payment', 'payout', 'refund'] as const;
/** One of `WEBHOOK_KINDS`: the kind of a webhook the service sends. */
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
