// The server audit's checks: ONE ordered array (run order, report order). Ids are public API: never rename them.
import { clientMistakeChecks } from './client-mistake-forgeries.js';
import { commitCancelChecks } from './commit-cancel.js';
import { copChecks } from './cop-flows.js';
import { credentialNearMissChecks } from './credential-near-misses.js';
import { paymentWebhookChecks } from './payment-webhooks.js';
import { paymentReferenceChecks } from './payments.js';
import { publicKeyChecks } from './public-key.js';
import { refundDestinationChecks } from './refund-destination.js';
import { refundChecks } from './refunds.js';
import { replayChecks } from './replay-and-concurrency.js';
import { responseDetailChecks } from './response-details.js';
import { forgeryChecks } from './signature-forgeries.js';
import { signingFaultChecks } from './signing-faults.js';
import { transportChecks } from './transport.js';
import { redeliveryChecks } from './webhook-redelivery.js';
import { statusWebhookChecks } from './webhook-status-changes.js';
import { webhookChecks } from './webhooks.js';

/** The server audit's checks, in run order (ids are unique; the engine refuses duplicates). */
export const serverChecks = [
  ...transportChecks,
  ...publicKeyChecks,
  ...responseDetailChecks,
  ...signingFaultChecks,
  ...replayChecks,
  ...forgeryChecks,
  ...credentialNearMissChecks,
  ...clientMistakeChecks,
  ...copChecks,
  ...commitCancelChecks,
  ...refundChecks,
  ...statusWebhookChecks,
  ...webhookChecks,
  ...redeliveryChecks,
  ...paymentWebhookChecks,
  ...refundDestinationChecks,
  ...paymentReferenceChecks,
] as const;

/** Every server check id, as a type: tables keyed by it (`satisfies Record<ServerCheckId, …>`) must list each check. */
export type ServerCheckId = (typeof serverChecks)[number]['id'];

export { CONCURRENT_COPIES } from './replay-and-concurrency.js';
export {
  NEED,
  serverCheck,
  startRun,
  type AuditCredentials,
  type KnownTimings,
  type ServerAuditContext,
  type ServerCheck,
  type ServerRunContext,
} from './context.js';
export { signBroken, signCorrectly, withoutHeaders, type Breakage } from './forge.js';
export type { AuditRunState } from './run-state.js';
