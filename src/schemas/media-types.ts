// The media types of the spec's bodies (Create payout: application/vnd.service.v1.0+json; Create refund:
// application/vnd.service.v0.7+json), written once for the reference service that answers in them and the client
// audit that expects them.

/** Content-Type and Accept of the payout endpoints (spec, Create payout). */
export const PAYOUT_MEDIA_TYPE = 'application/vnd.service.v1.0+json';
/** Content-Type and Accept of the refund endpoint (spec, Create refund). */
export const REFUND_MEDIA_TYPE = 'application/vnd.service.v0.7+json';
