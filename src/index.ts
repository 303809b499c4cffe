// payconform's public surface, by layer: generic below, specific above. Everything public is re-exported here.

// Shared types
export { PayconformError } from './errors.js';
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
export * from './keys/index.js';
export * from './ed25519/index.js';

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
export { verifyErrorCodes, type VerifyErrorCode } from './profile/verify-error-codes.js';
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
  verifyRequestAsync,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from './profile/verify-request.js';

// Webhook signatures (SHA256withRSA)
export * from './webhooks/index.js';

// Payload validation (JSON Schemas) and business rules
export * from './schemas/index.js';
export * from './rules/index.js';
