// payconform's public surface, by what a user does: sign, verify, keys, webhooks, payloads, stores, errors. Every name
// is listed (no `export *`), so the surface can be read on one screen and nothing internal leaks out by accident. The
// layers below (RFC 9421's generic engine, Structured Fields, PEM and base64 helpers, the schema registry) stay
// exported from their own modules for the code that builds on them, not from here: the profile's `signRequest` and
// `verifyRequest` are the way in, and payconform/conformance's `diagnoseSignature` shows a signature base that
// disagrees. The business rules are the reference service's and the audits', the attestation envelopes
// payconform/conformance's. api/*.api.md lists every entry point; test/api-report.test.ts bounds their size.

// Errors
export { PayconformError, type PayconformErrorCode } from './errors.js';
export type { ErrorCatalogue, ErrorCodeEntry } from './error-catalogue.js';

// The request a signer signs and a verifier verifies
export { toFieldLines, type FieldLines, type HttpRequest } from './http/message.js';

// Signing and verifying requests: the payments service's profile of RFC 9421 and RFC 9530
export {
  applySignedHeaders,
  signRequest,
  type SignOptions,
  type SigningCredentials,
  type SignResult,
} from './profile/sign-request.js';
export {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from './profile/verify-request.js';
// verifyRequestAsync and its worker pool start threads and read the environment: the root entry (../index.ts) adds
// them from net/verify-pool/.
export {
  createVerificationPolicy,
  defaultVerificationPolicy,
  type PolicyEnforcement,
  type VerificationPolicy,
} from './profile/verification-policy.js';
export {
  serviceFailureCodes,
  verifyErrorCodes,
  type VerifyErrorCode,
} from './profile/verify-error-codes.js';
export {
  profileDeviations,
  serviceProfile,
  type ProfileDeviation,
  type ServiceProfile,
} from './profile/service-profile.js';
export { LookupTimeoutError, withLookupDeadline } from './profile/lookup-deadline.js';

// Stores: the nonce store verification records each nonce in (payconform/redis has one for several instances)
export {
  MemoryNonceStore,
  type MemoryNonceStoreOptions,
  type NonceOwner,
  type NonceStore,
} from './profile/nonce-store.js';

// RFC 9530 Content-Digest
export {
  computeContentDigest,
  parseContentDigest,
  verifyContentDigest,
  type ContentDigestErrorCode,
  type DigestAlgorithm,
  type ParseContentDigestResult,
  type VerifyContentDigestResult,
} from './digest/content-digest.js';

// Ed25519 keys, and the two engines that sign and verify with them
export {
  exportEd25519PrivateKeyPem,
  exportEd25519PublicKeyBase64,
  exportEd25519PublicKeyPem,
  generateEd25519PrivateKey,
  KeyFormatError,
  type KeyFormatErrorCode,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from './keys/index.js';
export {
  type Ed25519Backend,
  type Ed25519PrivateKey,
  type Ed25519PublicKey,
  nobleBackend,
  nodeBackend,
} from './ed25519/index.js';

// Webhook signatures (SHA256withRSA)
export {
  exportRsaPrivateKeyPem,
  exportRsaPublicKeyPem,
  generateWebhookKeyPair,
  type ParsedRsaPrivateKey,
  type ParsedRsaPublicKey,
  parseRsaPrivateKey,
  parseRsaPublicKey,
  type RsaKeyPolicy,
  type RsaPrivateKeyInput,
  type RsaPublicKeyInput,
  signWebhook,
  verifyWebhook,
  type WebhookErrorCode,
  webhookErrorCodes,
  type WebhookKind,
  type WebhookVerifyResult,
} from './webhooks/index.js';

// Payloads: the spec's JSON bodies, their types and their validation (JSON Schemas)
export {
  type Account,
  type AccountIdentification,
  type AccountIdentificationType,
  type CopStatus,
  type ErrorBody,
  type JsonParseError,
  type PayloadKind,
  payloadKinds,
  type PayloadTypes,
  type PaymentRefundData,
  type PaymentRequestDetails,
  type PaymentStatus,
  type PaymentWebhook,
  type PaymentWebhookStatus,
  type Payout,
  type PayoutCreateRequest,
  type PayoutDestination,
  type PayoutStatus,
  type PayoutWebhook,
  type PayoutWebhookDestination,
  type PayoutWebhookStatus,
  type Refund,
  type RefundDestination,
  type RefundRequest,
  type RefundRequestDetails,
  type RefundStatus,
  type RefundWebhook,
  type RefundWebhookDestination,
  type SchemaViolation,
  type TextValidationResult,
  validatePayload,
  type ValidatePayloadOptions,
  validatePayloadText,
  type ValidationResult,
} from './schemas/index.js';
