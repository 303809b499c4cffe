// payconform's public surface, by layer: generic below, specific above. Every name is listed (no `export *`), so
// the surface can be read on one screen and nothing internal leaks out by accident.

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

// RFC 8941 Structured Fields (glue over structured-headers)
export {
  findDuplicateDictionaryKey,
  isByteSequence,
  isByteSequenceWrittenCanonically,
  isInnerList,
  isSfInteger,
  parseSfDictionary,
  parseSfItem,
  parseSfList,
  serializeSf,
  serializeSfMember,
  Token,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
  type List,
  type Parameters,
  type SerializeResult,
  type SfKind,
  type SfResult,
} from './structured-fields/structured-fields.js';

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

// Attestations: DSSE envelopes (PAE, Ed25519) and in-toto Test Result statements
export {
  dsseKeyId,
  preAuthEncoding,
  serializeDsseEnvelope,
  signDsseEnvelope,
  verifyDsseEnvelope,
  type DsseEnvelope,
  type DsseSignature,
  type DsseVerifyCode,
  type DsseVerifyResult,
} from './attest/dsse.js';
export {
  createTestResultStatement,
  IN_TOTO_PAYLOAD_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  parseTestResultStatement,
  TEST_RESULT_PREDICATE_TYPE,
  type ResourceDescriptor,
  type Statement,
  type TestResult,
  type TestResultPredicate,
} from './attest/statement.js';

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

// Payload validation (JSON Schemas) and business rules
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
export {
  activeRefundStatuses,
  addDecimals,
  autoCommitCopStatuses,
  cancelPayout,
  checkRefund,
  commitPayout,
  compareDecimals,
  countedRefundStatuses,
  type Decimal,
  type DecimalInput,
  type DecimalResult,
  decimalsEqual,
  decimalToNumber,
  formatDecimal,
  holdingCopStatuses,
  initialPayoutStatus,
  type InitialPayoutStatusInput,
  isCopStatus,
  isOriginalPayerAccount,
  isPositive,
  MAX_DECIMAL_DIGITS,
  normalizeDecimal,
  parseDecimal,
  type ParseDecimalOptions,
  PAYOUT_CANCEL_STATUS_REASON,
  type PayoutStateFields,
  type PayoutTransitionRefusal,
  type PayoutTransitionResult,
  REFUND_AMOUNT_MAX_SCALE,
  type RefundCheck,
  type RefundCheckInput,
  refundDestinationFromPayer,
  type RefundDestinationResult,
  type RefundRefusalCode,
  refundRefusalStatus,
  subtractDecimals,
  sumDecimals,
  toDecimal,
  ZERO,
} from './rules/index.js';
