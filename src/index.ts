// payconform's public surface, by layer: generic below, specific above. Every name is listed (no `export *`), so
// the surface can be read on one screen and nothing internal leaks out by accident. It holds what a signer or a
// verifier needs: Structured Fields are `structured-headers`' own surface, the business rules the reference service's
// and the audits', the attestation envelopes `payconform/conformance`'s (api/*.api.md lists every entry point).

// Shared types
export { PayconformError, type PayconformErrorCode } from './errors.js';
export type { ErrorCatalogue, ErrorCodeEntry } from './error-catalogue.js';
export {
  fieldLinesFromRaw,
  getFieldValues,
  toFieldLines,
  type FieldLines,
  type HttpRequest,
} from './http/message.js';

// RFC 9530 Content-Digest
export {
  computeContentDigest,
  digestBytes,
  isDigestAlgorithm,
  MAX_DIGEST_MEMBERS,
  parseContentDigest,
  verifyContentDigest,
  type ContentDigestErrorCode,
  type DigestAlgorithm,
  type ParseContentDigestResult,
  type VerifyContentDigestResult,
} from './digest/content-digest.js';

// Keys and Ed25519 backends
export {
  assertSingleDerSequence,
  decodeStrictBase64,
  ed25519PrivateKeyFromSeed,
  encodeBase64,
  exportEd25519PrivateKeyDer,
  exportEd25519PrivateKeyPem,
  exportEd25519PublicKeyBase64,
  exportEd25519PublicKeyDer,
  exportEd25519PublicKeyPem,
  exportEd25519SeedBase64,
  formatPem,
  generateEd25519PrivateKey,
  KeyFormatError,
  type KeyFormatErrorCode,
  looksLikePem,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
  parsePem,
  type PemBlock,
} from './keys/index.js';
export {
  defaultBackend,
  type Ed25519Backend,
  type Ed25519PrivateKey,
  type Ed25519PublicKey,
  isSmallOrderEncoding,
  nobleBackend,
  nodeBackend,
} from './ed25519/index.js';

// RFC 9421 HTTP Message Signatures (generic)
export {
  componentIdentifier,
  componentIdentifiers,
  DERIVED_COMPONENTS,
  isDerivedComponentName,
  type ComponentIdentifier,
  type DerivedComponentName,
} from './signatures/component-identifier.js';
export {
  parseTargetUri,
  normalizeAuthority,
  type AuthorityPortRule,
  type TargetUriParts,
  type TargetUriResult,
} from './signatures/target-uri.js';
export {
  canonicalizeFieldLine,
  combinedFieldValue,
  fieldLineValues,
} from './signatures/field-values.js';
export {
  componentValue,
  createSignatureBase,
  encodeQueryParamComponent,
  type SignatureBaseErrorCode,
  type SignatureBaseOptions,
  type SignatureBaseResult,
} from './signatures/signature-base.js';
export {
  serializeSignatureParams,
  type SerializeParamsResult,
} from './signatures/signature-params.js';
export {
  parseSignature,
  parseSignatureInput,
  serializeSignature,
  serializeSignatureInput,
  type ParseSignatureInputResult,
  type ParseSignatureResult,
  type SignatureFieldErrorCode,
  type SignatureInput,
} from './signatures/signature-fields.js';
export {
  signSignatureBase,
  verifySignatureBase,
  verifySignatureBaseAsync,
} from './signatures/create-signature.js';

// The payments service profile
export {
  profileDeviations,
  serviceProfile,
  type ProfileDeviation,
  type ServiceProfile,
} from './profile/service-profile.js';
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
  MemoryNonceStore,
  type MemoryNonceStoreOptions,
  type NonceOwner,
  type NonceStore,
} from './profile/nonce-store.js';
export {
  applySignedHeaders,
  signRequest,
  type SignOptions,
  type SigningCredentials,
  type SignResult,
} from './profile/sign-request.js';
export {
  applicationSecretMatches,
  applicationSecretProblem,
} from './profile/application-secret.js';
export {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from './profile/verify-request.js';
export {
  DEFAULT_LOOKUP_TIMEOUT_MS,
  LookupTimeoutError,
  withLookupDeadline,
} from './profile/lookup-deadline.js';
// verifyRequestAsync and its worker pool start threads and read the environment: the root entry (../index.ts) adds
// them from net/verify-pool/.

// Webhook signatures (SHA256withRSA)
export {
  exportRsaPrivateKeyPem,
  exportRsaPublicKeyPem,
  exportTrimmedPublicKeyPem,
  generateWebhookKeyPair,
  MAX_AUTHORIZATION_LENGTH,
  type ParsedRsaPrivateKey,
  type ParsedRsaPublicKey,
  parseRsaPrivateKey,
  parseRsaPublicKey,
  type RsaKeyPolicy,
  type RsaPrivateKeyInput,
  type RsaPublicKeyInput,
  signWebhook,
  verifyWebhook,
  WEBHOOK_SIGNATURE_ALGORITHM,
  type WebhookErrorCode,
  webhookErrorCodes,
  type WebhookVerifyResult,
} from './webhooks/index.js';

// Payload validation (JSON Schemas)
export {
  type Account,
  type AccountIdentification,
  type AccountIdentificationType,
  accountIdentificationTypes,
  type CopStatus,
  copStatuses,
  type ErrorBody,
  escapePointerToken,
  getRegisteredSchema,
  getSchemaValidator,
  isOneOf,
  isPayloadKind,
  type JsonParseError,
  type JsonTextResult,
  parseJsonBytes,
  parseJsonText,
  type PayloadKind,
  payloadKinds,
  payloadSchemaId,
  type PayloadTypes,
  type PaymentRefundData,
  type PaymentRequestDetails,
  type PaymentStatus,
  paymentStatuses,
  type PaymentWebhook,
  type PaymentWebhookStatus,
  paymentWebhookStatuses,
  type Payout,
  type PayoutCreateRequest,
  type PayoutDestination,
  type PayoutStatus,
  payoutStatuses,
  type PayoutWebhook,
  type PayoutWebhookDestination,
  type PayoutWebhookStatus,
  payoutWebhookStatuses,
  type Refund,
  type RefundDestination,
  type RefundRequest,
  type RefundRequestDetails,
  type RefundStatus,
  refundStatuses,
  type RefundWebhook,
  type RefundWebhookDestination,
  type RegisteredSchema,
  registeredSchemaIds,
  SCHEMA_BASE,
  schemaRegistry,
  type SchemaViolation,
  type TextValidationResult,
  validateAgainst,
  validatePayload,
  type ValidatePayloadOptions,
  validatePayloadText,
  type ValidationResult,
} from './schemas/index.js';
