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
export * from './statuses.js';
export type * from './types.js';
