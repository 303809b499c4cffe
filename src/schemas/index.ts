// Public surface of payload validation: kinds, schema ids, the shared validator, statuses and payload types.
export {
  payloadKinds,
  isPayloadKind,
  payloadSchemaId,
  SCHEMA_BASE,
  type PayloadKind,
} from './payload-kinds.js';
export {
  validatePayload,
  validatePayloadText,
  type ValidatePayloadOptions,
  type JsonParseError,
  type TextValidationResult,
} from './validate-payload.js';
export {
  getSchemaValidator,
  validateAgainst,
  registeredSchemaIds,
  getRegisteredSchema,
  escapePointerToken,
  type SchemaViolation,
  type ValidationResult,
} from './validator.js';
export { parseJsonText, parseJsonBytes, type JsonTextResult } from './json-text.js';
export { schemaRegistry, type RegisteredSchema } from './registry.js';
export {
  type AccountIdentificationType,
  accountIdentificationTypes,
  type CopStatus,
  copStatuses,
  isOneOf,
  type PaymentStatus,
  paymentStatuses,
  type PaymentWebhookStatus,
  paymentWebhookStatuses,
  type PayoutStatus,
  payoutStatuses,
  type PayoutWebhookStatus,
  payoutWebhookStatuses,
  type RefundStatus,
  refundStatuses,
} from './statuses.js';
export {
  type Account,
  type AccountIdentification,
  type ErrorBody,
  type PayloadTypes,
  type PaymentRefundData,
  type PaymentRequestDetails,
  type PaymentWebhook,
  type Payout,
  type PayoutCreateRequest,
  type PayoutDestination,
  type PayoutWebhook,
  type PayoutWebhookDestination,
  type Refund,
  type RefundDestination,
  type RefundRequest,
  type RefundRequestDetails,
  type RefundWebhook,
  type RefundWebhookDestination,
} from './types.js';
